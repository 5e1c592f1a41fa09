//! The watch list itself. See the module docs of [`crate::watch`] for the rules.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::mem;

use serde::{Deserialize, Serialize};

use super::{CallId, Intent, SavedCall, WatchConfig, WatchOutput};
use crate::error::Error;
use crate::model::Model;
use crate::snapshot::{self, Snapshot};
use crate::time::later;
use crate::tracker::{Failure, Input, Output, RequestKind, StopReason, Tracker, TrackerConfig};
use crate::Json;

/// Requests released (or about to be) and not answered yet, as bits: what R-6 reconciles.
const GET: u8 = 1;
const CANCEL: u8 = 2;
const UPDATE: u8 = 4;
const FETCH: u8 = 8;
/// A 2026 MRTR continuation `tools/call`. It only goes out before a handle exists, so a resumed
/// record holding one is reconciled as an unanswered create (R-5), never re-sent.
const CONTINUE: u8 = 16;

/// Scratch and queue buffers above this many items are given back once empty.
const SPARE: usize = 256;

const fn bit(kind: RequestKind) -> u8 {
    match kind {
        RequestKind::Get => GET,
        RequestKind::Cancel => CANCEL,
        RequestKind::Update => UPDATE,
        RequestKind::FetchResult => FETCH,
        RequestKind::ContinueCall => CONTINUE,
    }
}

/// One watched call and its record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Entry {
    tracker: Tracker,
    /// What a new call creates (R-1); `None` for a call added by handle or snapshot, and once
    /// the handle is known (nothing is reconciled from then on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    intent: Option<Box<Intent>>,
    /// The `Create` was released to the host (a create answer is only taken after it).
    #[serde(default)]
    create_released: bool,
    /// Job submits sent again with the same idempotency key (R-5).
    #[serde(default)]
    resends: u8,
    /// When the next re-send of an unanswered job submit is released (R-5): the poll policy's
    /// retry schedule, as the endpoint waits between its tries, so an outage is not hammered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resend_at: Option<u64>,
    /// The record's version: bumped by every change.
    version: u64,
    /// The latest version the host confirmed persisted.
    persisted: u64,
    /// A `Persist` for this call waits in the output queue.
    #[serde(default)]
    persist_queued: bool,
    /// Requests released (or about to be) and unanswered (R-6).
    #[serde(default)]
    in_flight: u8,
    /// The latest time the call was driven at: a resume counts from no earlier (R-11).
    #[serde(default)]
    acted_at: u64,
    /// Prompts asked and not answered (R-7).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    prompts: Vec<(String, Json)>,
    /// The call's ending, kept to report it again after a resume (R-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ending: Option<Box<WatchOutput>>,
    /// Outputs waiting for their version to be persisted (R-4).
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    withheld: VecDeque<(u64, WatchOutput)>,
    /// The wake this call has in the list's wake set (derived; rebuilt on restore).
    #[serde(skip)]
    wake: Option<u64>,
}

impl Entry {
    fn new(tracker: Tracker, intent: Option<Box<Intent>>) -> Entry {
        Entry {
            tracker,
            intent,
            create_released: false,
            resends: 0,
            resend_at: None,
            version: 0,
            persisted: 0,
            persist_queued: false,
            in_flight: 0,
            acted_at: 0,
            prompts: Vec::new(),
            ending: None,
            withheld: VecDeque::new(),
            wake: None,
        }
    }

    /// When the list must drive this call next: its tracker's wake or a pending re-send.
    fn next_wake(&self) -> Option<u64> {
        match (self.tracker.poll_timeout(), self.resend_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A new call whose create answer has not come.
    fn awaiting_create(&self) -> bool {
        self.intent.is_some() && self.tracker.handle().is_none() && !self.tracker.is_done()
    }

    /// Notes what an output of the tracker means for the record.
    fn note(&mut self, output: &Output) {
        match output {
            Output::Send { request } => self.in_flight |= bit(request.kind()),
            Output::AskUser { key, request, .. } => {
                self.prompts.push((key.clone(), request.clone()))
            }
            _ => {}
        }
    }
}

/// The record of one call, as stored.
#[derive(Deserialize)]
struct SavedEntry {
    call: CallId,
    entry: Box<Entry>,
}

impl Serialize for SavedEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SavedRef {
            call: self.call,
            entry: &self.entry,
        }
        .serialize(s)
    }
}

impl Snapshot for SavedEntry {
    const KIND: &'static str = "watch_call";
}

/// [`SavedEntry`] by reference, so saving a record clones nothing.
#[derive(Serialize)]
struct SavedRef<'a> {
    call: CallId,
    entry: &'a Entry,
}

/// The envelope of [`crate::snapshot`], written by reference.
#[derive(Serialize)]
struct Envelope<'a> {
    kind: &'static str,
    v: u32,
    state: SavedRef<'a>,
}

/// Many watched calls. Create with [`WatchList::new`], add calls with [`WatchList::add_new`],
/// [`WatchList::add_handle`], [`WatchList::add_snapshot`] or [`WatchList::resume_call`], drive
/// with [`WatchList::handle_input`], [`WatchList::handle_timeout`] and
/// [`WatchList::handle_persisted`], drain [`WatchList::poll_output`].
///
/// ```
/// use longcall::tracker::{Input, Output, Request, TrackerConfig};
/// use longcall::view::JobView;
/// use longcall::watch::{CallId, Intent, WatchList, WatchConfig, WatchOutput};
/// use longcall::{Model, Status};
///
/// let mut list = WatchList::new(WatchConfig::default());
/// let intent = Intent {
///     model: Model::Job,
///     request: serde_json::json!({"prompt": "a red bicycle"}),
///     idempotency_key: Some("render-7".into()),
/// };
/// let call = CallId(7);
/// list.add_new(call, intent, TrackerConfig::default()).unwrap();
/// // R-1: the record first; nothing to send yet.
/// assert_eq!(list.poll_output(), Some(WatchOutput::Persist { call }));
/// assert_eq!(list.poll_output(), None);
/// let saved = list.save_call(call).unwrap(); // the store writes saved.text
/// list.handle_persisted(call, saved.version).unwrap();
/// let Some(WatchOutput::Create { resend: false, .. }) = list.poll_output() else { panic!() };
///
/// let job = JobView { id: "job_1".into(), status: Status::Queued, result: None, error: None };
/// list.handle_input(10, call, Input::JobCreated { job }).unwrap();
/// // R-2: the handle is recorded before anything uses it.
/// assert_eq!(list.poll_output(), Some(WatchOutput::Persist { call }));
/// assert_eq!(list.poll_output(), None);
/// let saved = list.save_call(call).unwrap();
/// list.handle_persisted(call, saved.version).unwrap();
/// while list.poll_output().is_some() {} // the status and the cancel button
/// let wake = list.poll_timeout().unwrap();
/// list.handle_timeout(wake);
/// assert_eq!(list.poll_output(), Some(WatchOutput::Persist { call }));
/// list.handle_persisted(call, list.save_call(call).unwrap().version).unwrap();
/// assert_eq!(
///     list.poll_output(),
///     Some(WatchOutput::Call {
///         call,
///         output: Output::Send { request: Request::Get { handle: "job_1".into() } },
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ListState")]
pub struct WatchList {
    config: WatchConfig,
    calls: BTreeMap<CallId, Box<Entry>>,
    /// Released outputs, in order.
    queue: VecDeque<WatchOutput>,
    /// `(at, call)` for every call with a wake: the next wake is the first (R-8).
    #[serde(skip)]
    wakes: BTreeSet<(u64, CallId)>,
    /// Scratch for [`WatchList::handle_timeout`], kept to allocate nothing per wake.
    #[serde(skip)]
    due: Vec<(CallId, bool)>,
}

/// The stored form of a [`WatchList`]; the wake set is rebuilt from the trackers.
#[derive(Deserialize)]
struct ListState {
    config: WatchConfig,
    calls: BTreeMap<CallId, Box<Entry>>,
    queue: VecDeque<WatchOutput>,
}

impl From<ListState> for WatchList {
    fn from(s: ListState) -> WatchList {
        let mut list = WatchList {
            config: s.config,
            calls: s.calls,
            queue: s.queue,
            wakes: BTreeSet::new(),
            due: Vec::new(),
        };
        for (call, e) in list.calls.iter_mut() {
            e.wake = e.next_wake();
            if let Some(at) = e.wake {
                list.wakes.insert((at, *call));
            }
        }
        list
    }
}

impl Snapshot for WatchList {
    const KIND: &'static str = "watch_list";
}

fn unknown(call: CallId) -> Error {
    Error::InvalidInput {
        field: "call".into(),
        reason: format!("no call {call} in this watch list"),
    }
}

impl WatchList {
    /// An empty list.
    pub fn new(config: WatchConfig) -> WatchList {
        WatchList {
            config,
            calls: BTreeMap::new(),
            queue: VecDeque::new(),
            wakes: BTreeSet::new(),
            due: Vec::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &WatchConfig {
        &self.config
    }

    /// How many calls the list holds.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// True when the list holds no call.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// True when `call` is in the list.
    pub fn contains(&self, call: CallId) -> bool {
        self.calls.contains_key(&call)
    }

    /// The call's tracker, to read its status, button or run record.
    pub fn tracker(&self, call: CallId) -> Option<&Tracker> {
        self.calls.get(&call).map(|e| &e.tracker)
    }

    /// The call's intent, for a call added with [`WatchList::add_new`], until its handle is
    /// known or it ended.
    pub fn intent(&self, call: CallId) -> Option<&Intent> {
        self.calls.get(&call).and_then(|e| e.intent.as_deref())
    }

    /// The call's record version (bumped by every change) and the latest version confirmed.
    pub fn versions(&self, call: CallId) -> Option<(u64, u64)> {
        self.calls.get(&call).map(|e| (e.version, e.persisted))
    }

    /// Input prompts asked and not answered yet, `(key, request)`: after a resume, what the host
    /// shows again (R-7). Empty once the call ended.
    pub fn open_prompts(&self, call: CallId) -> &[(String, Json)] {
        self.calls.get(&call).map_or(&[], |e| e.prompts.as_slice())
    }

    /// Adds a call that is about to be created. Its record holds the intent; once the host
    /// confirms it persisted, [`WatchOutput::Create`] says to send it (R-1).
    ///
    /// Errors (nothing changes): a call id already in the list, an intent that fails
    /// [`Intent::check`], an invalid tracker configuration.
    pub fn add_new(
        &mut self,
        call: CallId,
        intent: Intent,
        config: TrackerConfig,
    ) -> Result<(), Error> {
        self.vacant(call)?;
        intent.check()?;
        let tracker = Tracker::new(intent.model, config)?;
        let mut entry = Box::new(Entry::new(tracker, None));
        let create = WatchOutput::Create {
            call,
            intent: intent.clone(),
            resend: false,
        };
        entry.intent = Some(Box::new(intent));
        entry.withheld.push_back((1, create));
        self.calls.insert(call, entry);
        self.pump(call, true);
        Ok(())
    }

    /// Watches a call whose handle (task or job id) the host persisted earlier. No status is
    /// assumed until the server answers (E-6): the first output is a poll, released once the
    /// record holding the handle is confirmed (R-2). `now` is not needed for that (the poll is
    /// due at once); it is taken like every other input so hosts call all of them alike.
    ///
    /// Errors (nothing changes): a call id already in the list, an empty handle, an invalid
    /// tracker configuration.
    pub fn add_handle(
        &mut self,
        now: u64,
        call: CallId,
        model: Model,
        handle: &str,
        config: TrackerConfig,
    ) -> Result<(), Error> {
        let _ = now; // the first poll is due at once (E-6)
        self.vacant(call)?;
        let tracker = tracker_for_handle(model, handle, config)?;
        self.calls.insert(call, Box::new(Entry::new(tracker, None)));
        self.pump(call, true);
        Ok(())
    }

    /// Adds a call from a tracker snapshot ([`crate::snapshot::save`] of a [`Tracker`]).
    /// `in_flight` lists the requests that were sent and not answered when it was taken; they
    /// count as lost in transport (R-6).
    ///
    /// Errors (nothing changes): a call id already in the list, a snapshot that does not restore.
    pub fn add_snapshot(
        &mut self,
        now: u64,
        call: CallId,
        tracker_snapshot: &str,
        in_flight: &[RequestKind],
    ) -> Result<(), Error> {
        self.vacant(call)?;
        let mut tracker: Tracker = snapshot::restore(tracker_snapshot)?;
        // Anything the snapshot still had queued was made before it was taken: it is handed on.
        let queued = drain(&mut tracker);
        let mut entry = Box::new(Entry::new(tracker, None));
        if !entry.tracker.is_done() {
            let lost = in_flight.iter().fold(0, |acc, k| acc | bit(*k));
            resume_in_flight(now, &mut entry.tracker, lost);
        }
        for o in &queued {
            entry.note(o);
        }
        self.insert_seeded(call, entry, queued);
        Ok(())
    }

    /// Resumes a call from its stored record ([`SavedCall::text`]) after a restart: an ending
    /// is reported again (R-3), an intent without a handle is reconciled (R-5), requests in flight
    /// count as lost (R-6), open prompts are kept, not asked again (R-7). Returns the call's id.
    ///
    /// Errors (nothing changes): a record that does not restore, a call id already in the list.
    pub fn resume_call(&mut self, now: u64, saved: &str) -> Result<CallId, Error> {
        let SavedEntry { call, mut entry } = snapshot::restore(saved)?;
        self.vacant(call)?;
        // R-11: the last holder may have acted later than this host's clock says it is now.
        let now = now.max(entry.acted_at);
        entry.acted_at = now;
        // The record was written, so every version in it is persisted; what was withheld was
        // released or about to be: its meaning is already in the record (in flight, prompts,
        // ending) and is reconciled below, never replayed.
        entry.persisted = entry.version;
        entry.persist_queued = false;
        entry.withheld.clear();
        entry.wake = None;
        let mut changed = false;
        if let Some(ending) = entry.ending.as_deref() {
            entry.withheld.push_back((entry.version, ending.clone()));
        } else if entry.awaiting_create() {
            changed = true;
            if entry.resend_at.is_some() {
                // The restart was the wait: the pending re-send goes now.
                entry.resend_at = Some(now);
                release_resend(now, call, &mut entry);
            } else {
                reconcile_create(now, call, &mut entry, self.config.max_create_resends, false);
            }
        } else if !entry.tracker.is_done() {
            // Drained when saved, so the tracker's own queue is empty.
            changed = entry.in_flight != 0;
            resume_in_flight(now, &mut entry.tracker, entry.in_flight);
            entry.in_flight = 0;
        }
        self.calls.insert(call, entry);
        self.pump(call, changed);
        Ok(call)
    }

    /// Reconciled a create that went unanswered ([`WatchOutput::CreateUnanswered`]): the host
    /// found the task or job it made (by listing, or from the user) and the call now watches
    /// `handle`. The record goes from "create unanswered" to "handle known" in one write, so no
    /// crash can fall between forgetting the call and watching it again (R-5).
    ///
    /// Errors (nothing changes): an unknown call, a call that is not stopped with an unanswered
    /// create, an empty handle, an invalid tracker configuration.
    pub fn adopt_handle(
        &mut self,
        now: u64,
        call: CallId,
        handle: &str,
        config: TrackerConfig,
    ) -> Result<(), Error> {
        let entry = self.calls.get_mut(&call).ok_or_else(|| unknown(call))?;
        if !matches!(
            entry.ending.as_deref(),
            Some(WatchOutput::CreateUnanswered { .. })
        ) {
            return Err(Error::invalid_input(
                "call",
                "only a call whose create went unanswered adopts a handle",
            ));
        }
        let _ = now; // the first poll is due at once, as in `add_handle`
        entry.tracker = tracker_for_handle(entry.tracker.model(), handle, config)?;
        entry.ending = None;
        entry.intent = None;
        entry.in_flight = 0;
        entry.prompts.clear();
        self.pump(call, true);
        Ok(())
    }

    /// Something happened to `call` (the same inputs as [`Tracker::handle_input`]).
    ///
    /// A create answer is taken only after the `Create` was released (R-1). An unanswered job
    /// submit is sent again with its idempotency key, up to the limit; an unanswered MCP create
    /// becomes [`WatchOutput::CreateUnanswered`] (R-5).
    ///
    /// Errors are typed and change nothing: an unknown call, anything the tracker refuses.
    pub fn handle_input(&mut self, now: u64, call: CallId, input: Input) -> Result<(), Error> {
        let max_resends = self.config.max_create_resends;
        let entry = self.calls.get_mut(&call).ok_or_else(|| unknown(call))?;
        let create_answer = matches!(
            input,
            Input::TaskCreated { .. }
                | Input::JobCreated { .. }
                | Input::CallResult { .. }
                | Input::CallError { .. }
                | Input::SubmitRefused { .. }
                | Input::CreateUnanswered
        );
        if create_answer && entry.awaiting_create() && !entry.create_released {
            return Err(Error::invalid_input(
                "input",
                "the creating request was not released yet: persist the intent and send the Create first",
            ));
        }
        if matches!(input, Input::CreateUnanswered) && entry.awaiting_create() {
            entry.acted_at = entry.acted_at.max(now);
            reconcile_create(now, call, entry, max_resends, true);
            self.pump(call, true);
            return Ok(());
        }
        let answered = match &input {
            Input::TaskPolled { .. } | Input::JobPolled { .. } => GET,
            Input::CancelAnswered { .. } => CANCEL,
            Input::UpdateAcked => UPDATE,
            Input::ResultFetched { .. } => FETCH,
            Input::TaskCreated { .. }
            | Input::CallInputRequired { .. }
            | Input::CallResult { .. }
            | Input::CallError { .. } => CONTINUE,
            Input::RequestFailed { request, .. } => bit(*request),
            _ => 0,
        };
        let key = match &input {
            Input::InputAnswered { key, .. } => Some(key.clone()),
            _ => None,
        };
        entry.tracker.handle_input(now, input)?;
        entry.acted_at = entry.acted_at.max(now);
        entry.in_flight &= !answered;
        if let Some(key) = key {
            entry.prompts.retain(|(k, _)| *k != key);
        }
        self.pump(call, true);
        Ok(())
    }

    /// Time passed: drives every call whose wake is at or before `now` (R-8). Call it at (or
    /// after) [`WatchList::poll_timeout`]; earlier calls do nothing.
    pub fn handle_timeout(&mut self, now: u64) {
        let mut due = mem::take(&mut self.due);
        due.clear();
        while let Some(&(at, call)) = self.wakes.first() {
            if at > now {
                break;
            }
            self.wakes.pop_first();
            let mut resent = false;
            if let Some(e) = self.calls.get_mut(&call) {
                e.wake = None;
                e.acted_at = e.acted_at.max(now);
                resent = release_resend(now, call, e);
                e.tracker.handle_timeout(now);
            }
            due.push((call, resent));
        }
        for &(call, resent) in &due {
            // A re-send released here changed the record without a tracker output.
            self.pump(call, resent);
        }
        due.clear();
        if due.capacity() <= SPARE {
            self.due = due;
        }
    }

    /// The host wrote the record of `call` at `version` ([`SavedCall::version`]): the outputs
    /// that waited for it are released (R-4). Confirming an older version again does nothing.
    ///
    /// Errors (nothing changes): an unknown call, a version the call never had.
    pub fn handle_persisted(&mut self, call: CallId, version: u64) -> Result<(), Error> {
        let entry = self.calls.get_mut(&call).ok_or_else(|| unknown(call))?;
        if version > entry.version {
            return Err(Error::InvalidInput {
                field: "version".into(),
                reason: format!(
                    "call {call} has no version {version} yet (latest {})",
                    entry.version
                ),
            });
        }
        entry.persisted = entry.persisted.max(version);
        release(entry, &mut self.queue);
        Ok(())
    }

    /// Removes a call (after its ending was reported, or to stop watching it for good): its
    /// withheld and queued outputs are dropped and [`WatchOutput::Removed`] says to delete its
    /// record. Returns false for an unknown call.
    pub fn remove(&mut self, call: CallId) -> bool {
        let Some(entry) = self.calls.remove(&call) else {
            return false;
        };
        if let Some(at) = entry.wake {
            self.wakes.remove(&(at, call));
        }
        self.queue.retain(|o| o.call() != call);
        self.queue.push_back(WatchOutput::Removed { call });
        true
    }

    /// Drops a call from this list without ending it, e.g. when another host took over its
    /// lease: no output, and the record in the store stays as last written. Outputs withheld for
    /// versions not yet written are dropped with it; whoever resumes the record reconciles what
    /// they meant (R-6, R-9). Returns false for an unknown call.
    pub fn unload(&mut self, call: CallId) -> bool {
        let Some(entry) = self.calls.remove(&call) else {
            return false;
        };
        if let Some(at) = entry.wake {
            self.wakes.remove(&(at, call));
        }
        self.queue.retain(|o| o.call() != call);
        true
    }

    /// The next output, or `None` when there is nothing to do now. Call it after every `add_*`,
    /// `handle_*` and `remove` until it returns `None`; then wait for
    /// [`WatchList::poll_timeout`] or the next input.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<WatchOutput> {
        let Some(out) = self.queue.pop_front() else {
            if self.queue.capacity() > SPARE {
                // A burst (every call added at once) leaves a large buffer: give it back.
                self.queue = VecDeque::new();
            }
            return None;
        };
        if let WatchOutput::Persist { call } = &out {
            if let Some(e) = self.calls.get_mut(call) {
                e.persist_queued = false;
            }
        }
        Some(out)
    }

    /// The earliest time [`WatchList::handle_timeout`] has work, over all calls (O(log n)).
    /// Ask again after every `add_*`, `handle_*` and `remove`.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<u64> {
        self.wakes.first().map(|&(at, _)| at)
    }

    /// The record of `call` as the store writes it. Write [`SavedCall::text`], then confirm
    /// [`SavedCall::version`] with [`WatchList::handle_persisted`].
    ///
    /// Errors: an unknown call; a record that does not serialize (a bug).
    pub fn save_call(&self, call: CallId) -> Result<SavedCall, Error> {
        let entry = self.calls.get(&call).ok_or_else(|| unknown(call))?;
        let text = serde_json::to_string(&Envelope {
            kind: SavedEntry::KIND,
            v: snapshot::VERSION,
            state: SavedRef { call, entry },
        })
        .map_err(|e| Error::SnapshotInvalid {
            reason: e.to_string(),
        })?;
        Ok(SavedCall {
            call,
            version: entry.version,
            model: entry.tracker.model(),
            next_wake_at: entry.wake,
            done: entry.tracker.is_done(),
            text,
        })
    }

    // --- internals ------------------------------------------------------------------------

    fn vacant(&self, call: CallId) -> Result<(), Error> {
        if self.calls.contains_key(&call) {
            return Err(Error::Duplicate {
                what: "call",
                id: call.to_string(),
            });
        }
        Ok(())
    }

    /// Inserts a new call whose first outputs were made outside `pump`, then pumps it.
    fn insert_seeded(&mut self, call: CallId, mut entry: Box<Entry>, seeded: Vec<Output>) {
        for output in seeded {
            entry
                .withheld
                .push_back((1, WatchOutput::Call { call, output }));
        }
        self.calls.insert(call, entry);
        self.pump(call, true);
    }

    /// After a change to `call`: moves its tracker's outputs behind the record (R-4), bumps the
    /// version if anything changed, releases what is persisted, updates the wake.
    fn pump(&mut self, call: CallId, mut changed: bool) {
        let Some(entry) = self.calls.get_mut(&call) else {
            return;
        };
        let tag = entry.version.saturating_add(1);
        loop {
            let out = match entry.tracker.poll_output() {
                Output::WakeAt { .. } | Output::Idle => {
                    // Thousands of calls idle between events: their empty queues keep nothing.
                    entry.tracker.release_spare_capacity();
                    break;
                }
                out => out,
            };
            changed = true;
            entry.note(&out);
            let out = match (out, entry.intent.as_deref()) {
                (
                    Output::Stopped {
                        reason: StopReason::CreateUnanswered,
                    },
                    Some(intent),
                ) => WatchOutput::CreateUnanswered {
                    call,
                    intent: intent.clone(),
                },
                (output, _) => WatchOutput::Call { call, output },
            };
            if matches!(
                out,
                WatchOutput::CreateUnanswered { .. }
                    | WatchOutput::Call {
                        output: Output::Settled { .. } | Output::Stopped { .. },
                        ..
                    }
            ) {
                entry.ending = Some(Box::new(out.clone()));
                entry.prompts.clear();
                entry.in_flight = 0;
            }
            entry.withheld.push_back((tag, out));
        }
        if changed {
            entry.version = tag;
            if !self.config.durable {
                entry.persisted = tag;
            } else if !entry.persist_queued {
                entry.persist_queued = true;
                self.queue.push_back(WatchOutput::Persist { call });
            }
        }
        if entry.tracker.handle().is_some() || entry.tracker.is_done() {
            // The intent is needed only while no handle is known (R-5); the next record drops it.
            entry.intent = None;
        }
        release(entry, &mut self.queue);
        let wake = entry.next_wake();
        if wake != entry.wake {
            if let Some(at) = entry.wake {
                self.wakes.remove(&(at, call));
            }
            if let Some(at) = wake {
                self.wakes.insert((at, call));
            }
            entry.wake = wake;
        }
    }
}

/// Moves the outputs whose version is persisted to the output queue, in order (R-4).
fn release(entry: &mut Entry, queue: &mut VecDeque<WatchOutput>) {
    while entry
        .withheld
        .front()
        .is_some_and(|(v, _)| *v <= entry.persisted)
    {
        if let Some((_, out)) = entry.withheld.pop_front() {
            if matches!(out, WatchOutput::Create { .. }) {
                entry.create_released = true;
            }
            queue.push_back(out);
        }
    }
    if entry.withheld.is_empty() && entry.withheld.capacity() > 0 {
        // Most calls wait for nothing most of the time: hold no buffer for them.
        entry.withheld = VecDeque::new();
    }
}

/// R-5: a create with no answer. A job submit goes again with the same idempotency key while the
/// budget lasts, after the poll policy's retry wait when `wait` (at once after a restart);
/// otherwise the tracker stops and the intent is handed to the host.
fn reconcile_create(now: u64, call: CallId, entry: &mut Entry, max_resends: u8, wait: bool) {
    let Some(intent) = entry.intent.as_deref() else {
        return;
    };
    if intent.model == Model::Job && entry.resends < max_resends {
        entry.resends = entry.resends.saturating_add(1);
        entry.create_released = false;
        let delay = if wait {
            let tries = u32::from(entry.resends);
            entry.tracker.poll_policy().retry_delay_ms(tries)
        } else {
            0
        };
        entry.resend_at = Some(later(now, delay));
        // Released now or at its time; `pump` sees no tracker output for it, so it is told the
        // record changed.
        release_resend(now, call, entry);
        return;
    }
    // The tracker stops with `create_unanswered`; `pump` turns that into the typed output.
    let _ = entry.tracker.handle_input(now, Input::CreateUnanswered);
}

/// Releases a job submit's re-send whose wait is over ([`Entry::resend_at`]); true when it did.
fn release_resend(now: u64, call: CallId, entry: &mut Entry) -> bool {
    match (entry.resend_at, entry.intent.as_deref()) {
        (Some(at), Some(intent)) if at <= now => {
            entry.resend_at = None;
            let tag = entry.version.saturating_add(1);
            entry.withheld.push_back((
                tag,
                WatchOutput::Create {
                    call,
                    intent: intent.clone(),
                    resend: true,
                },
            ));
            true
        }
        _ => false,
    }
}

/// Starts watching an existing handle with [`Tracker::watch`]: no status is assumed until the
/// server answers (E-6), and the first poll is queued in the tracker, so [`WatchList::pump`]
/// notes it in flight like any other request (R-6) and withholds it behind the record (R-2).
fn tracker_for_handle(model: Model, handle: &str, config: TrackerConfig) -> Result<Tracker, Error> {
    let mut tracker = Tracker::new(model, config)?;
    tracker.watch(handle)?;
    Ok(tracker)
}

/// Everything a tracker has queued, without the closing `WakeAt`/`Idle`.
fn drain(tracker: &mut Tracker) -> Vec<Output> {
    let mut out = Vec::new();
    loop {
        match tracker.poll_output() {
            Output::WakeAt { .. } | Output::Idle => return out,
            o => out.push(o),
        }
    }
}

/// R-6: requests that were in flight when the record was written count as failed without an
/// answer. The tracker retries what it needs; a pressed cancel is pressed again.
///
/// The tracker has no constructor for "restored with these requests in flight" yet, so this
/// feeds it transport failures through its public inputs. The one place to change when it does.
fn resume_in_flight(now: u64, tracker: &mut Tracker, in_flight: u8) {
    for kind in [
        RequestKind::Get,
        RequestKind::Update,
        RequestKind::FetchResult,
    ] {
        if in_flight & bit(kind) != 0 {
            let _ = tracker.handle_input(
                now,
                Input::RequestFailed {
                    request: kind,
                    failure: Failure::Transport,
                },
            );
        }
    }
    if in_flight & CANCEL != 0 {
        let _ = tracker.handle_input(
            now,
            Input::RequestFailed {
                request: RequestKind::Cancel,
                failure: Failure::Transport,
            },
        );
        // The press stands; a refusal means the window closed, which the button now shows.
        let _ = tracker.handle_input(now, Input::CancelPressed);
    }
}
