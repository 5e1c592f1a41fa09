//! Moving bytes for the probe: JSON-RPC over Streamable HTTP (2026 stateless, 2025 with a
//! session) or over a server command's stdio, every message recorded as a transcript line in the
//! format of `tests/traces` (plus `http.principal`, the label of the credentials a request used).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use longcall::wire::mcp2026::{self, ClientInfo, CLIENT_CAPABILITIES_META};
use longcall::Model;
use serde_json::{json, Map, Value};

/// Where the server is.
#[derive(Clone, Debug)]
pub enum Target {
    /// A Streamable HTTP endpoint.
    Http(String),
    /// A command that speaks JSON-RPC on its stdio.
    Stdio(Vec<String>),
}

/// One principal: a label for the transcript and the `Authorization` value it sends.
#[derive(Clone, Debug)]
pub struct Principal {
    pub label: String,
    pub authorization: Option<String>,
}

/// The server's answer to one request.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub msg: Option<Value>,
    pub retry_after_ms: Option<u64>,
    /// The HTTP status it came with (`None` on stdio).
    pub http_status: Option<u16>,
}

impl Answer {
    pub fn result(&self) -> Option<&Value> {
        self.msg.as_ref()?.get("result")
    }
}

enum Channel {
    Http {
        agent: ureq::Agent,
        url: String,
        session: Option<String>,
    },
    Stdio {
        child: Child,
        stdin: ChildStdin,
        rx: Receiver<String>,
    },
}

/// One session with the server, recording every message.
pub struct Session {
    channel: Channel,
    pub model: Model,
    t0: Instant,
    pub lines: Vec<Value>,
    next_id: i64,
    principals: Vec<Principal>,
    timeout: Duration,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Channel::Stdio { child, .. } = &mut self.channel {
            // Only the child this session started, by its handle.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn header_str(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), String::from)
}

impl Session {
    /// Opens a session (starting the command for a stdio target) and does the revision's
    /// handshake: 2026 `server/discover`, 2025 `initialize` + `notifications/initialized`.
    /// `model` None: try 2026, fall back to 2025.
    pub fn open(
        target: &Target,
        model: Option<Model>,
        principals: Vec<Principal>,
        timeout: Duration,
    ) -> Result<Session, String> {
        let channel = match target {
            Target::Http(url) => {
                let config = ureq::Agent::config_builder()
                    .http_status_as_error(false)
                    .timeout_global(Some(timeout))
                    .build();
                Channel::Http {
                    agent: ureq::Agent::new_with_config(config),
                    url: url.clone(),
                    session: None,
                }
            }
            Target::Stdio(cmd) => {
                let (prog, args) = cmd.split_first().ok_or("--stdio needs a command")?;
                let mut child = Command::new(prog)
                    .args(args)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| format!("cannot start {prog}: {e}"))?;
                let stdin = child.stdin.take().ok_or("no stdin")?;
                let stdout = child.stdout.take().ok_or("no stdout")?;
                let (tx, rx) = mpsc::channel();
                std::thread::spawn(move || {
                    for line in BufReader::new(stdout).lines() {
                        let Ok(line) = line else { break };
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                });
                Channel::Stdio { child, stdin, rx }
            }
        };
        let mut s = Session {
            channel,
            model: model.unwrap_or(Model::Task2026),
            t0: Instant::now(),
            lines: Vec::new(),
            next_id: 1,
            principals,
            timeout,
        };
        let try_2026 = model != Some(Model::Task2025);
        let mut discover_status = None;
        if try_2026 {
            let mut params = json!({"_meta": {CLIENT_CAPABILITIES_META: {"elicitation": {}}}});
            mcp2026::declare_envelope(&mut params, &probe_client());
            let discover = s.request_value(0, "server/discover", params, Map::new())?;
            let speaks = discover
                .result()
                .and_then(|r| r.get("supportedVersions"))
                .and_then(Value::as_array)
                .is_some_and(|v| v.iter().any(|x| x == "2026-07-28"));
            if speaks {
                s.model = Model::Task2026;
                return Ok(s);
            }
            if model == Some(Model::Task2026) {
                return Err("the server does not list 2026-07-28 in server/discover".into());
            }
            discover_status = discover.http_status.filter(|_| discover.msg.is_none());
            // Start the 2025 session on a clean transcript.
            s.lines.clear();
        }
        s.model = Model::Task2025;
        let init = s.request_value(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25",
                "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}},
                "clientInfo": probe_client()}),
            Map::new(),
        )?;
        if init.result().is_none() {
            let said = match (&init.msg, init.http_status) {
                (Some(m), _) => m.to_string(),
                (None, Some(status)) => format!("HTTP {status} without a JSON-RPC answer"),
                (None, None) => "no answer".into(),
            };
            // Neither revision's opening was answered: most often not the MCP endpoint at all.
            let hint = match (discover_status, init.http_status) {
                (Some(d), Some(_)) => format!(
                    " (server/discover got HTTP {d} without one too: is this the MCP endpoint? \
                     A job API is probed with --jobs)"
                ),
                _ => String::new(),
            };
            return Err(format!("initialize failed: {said}{hint}"));
        }
        s.notify("notifications/initialized")?;
        Ok(s)
    }

    /// `tools/list` (first page, then `nextCursor` pages, at most 20).
    pub fn list_tools(&mut self) -> Result<Vec<Value>, String> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..20 {
            let mut params = json!({});
            if self.model == Model::Task2026 {
                mcp2026::declare_envelope(&mut params, &probe_client());
            }
            if let (Some(c), Some(o)) = (&cursor, params.as_object_mut()) {
                o.insert("cursor".into(), c.clone());
            }
            let answer = self.request_value(0, "tools/list", params, Map::new())?;
            let Some(r) = answer.result() else {
                return Err(format!(
                    "tools/list failed: {}",
                    answer.msg.map_or("no answer".into(), |m| m.to_string())
                ));
            };
            if let Some(list) = r.get("tools").and_then(Value::as_array) {
                tools.extend(list.iter().cloned());
            }
            cursor = r.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                break;
            }
        }
        self.lines.clear();
        Ok(tools)
    }

    fn now_ms(&self) -> u64 {
        self.t0.elapsed().as_millis() as u64
    }

    /// Number of principals (at least one).
    pub fn principals(&self) -> usize {
        self.principals.len().max(1)
    }

    fn record(&mut self, dir: &str, http: Option<Value>, msg: Value) {
        let mut line = json!({"seq": self.lines.len() + 1, "t_ms": self.now_ms(), "dir": dir});
        if let (Some(h), Some(o)) = (http, line.as_object_mut()) {
            o.insert("http".into(), h);
        }
        if let Some(o) = line.as_object_mut() {
            o.insert("msg".into(), msg);
        }
        self.lines.push(line);
    }

    /// A fresh JSON-RPC id.
    pub fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn request_value(
        &mut self,
        principal: usize,
        method: &str,
        params: Value,
        headers: Map<String, Value>,
    ) -> Result<Answer, String> {
        let id = self.next_id();
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut h = headers;
        if self.model == Model::Task2026 {
            h.insert("MCP-Protocol-Version".into(), "2026-07-28".into());
            h.insert("Mcp-Method".into(), method.into());
        } else if method != "initialize" {
            h.extend(version_2025());
        }
        self.send(principal, msg, h)
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        let msg = json!({"jsonrpc": "2.0", "method": method});
        let h = if self.model == Model::Task2025 {
            version_2025()
        } else {
            Map::new()
        };
        self.send(0, msg, h).map(|_| ())
    }

    /// Sends one message (built by the core's codec) as `principal` and waits for its answer.
    pub fn send(
        &mut self,
        principal: usize,
        msg: Value,
        headers: Map<String, Value>,
    ) -> Result<Answer, String> {
        let mut msg = msg;
        if self.model == Model::Task2026 {
            // The core wrote the 2026 envelope (M-21); the probe names itself in it.
            mcp2026::set_client_info(&mut msg, &probe_client());
        }
        let id = msg.get("id").cloned().filter(|i| !i.is_null());
        let p = self.principals.get(principal).cloned();
        let mut http = json!({"method": "POST"});
        for (k, field) in [
            ("MCP-Protocol-Version", "mcpProtocolVersion"),
            ("Mcp-Method", "mcpMethod"),
            ("Mcp-Name", "mcpName"),
        ] {
            if let (Some(v), Some(o)) = (headers.get(k), http.as_object_mut()) {
                o.insert(field.into(), header_str(v).into());
            }
        }
        if let (Some(p), Some(o)) = (&p, http.as_object_mut()) {
            o.insert("principal".into(), p.label.clone().into());
        }
        let is_http = matches!(self.channel, Channel::Http { .. });
        self.record("c2s", is_http.then_some(http), msg.clone());
        match &mut self.channel {
            Channel::Http {
                agent,
                url,
                session,
            } => {
                let mut req = agent
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream");
                for (k, v) in &headers {
                    req = req.header(k.as_str(), header_str(v));
                }
                if let Some(a) = p.as_ref().and_then(|p| p.authorization.as_deref()) {
                    req = req.header("authorization", a);
                }
                if let Some(sid) = session.as_deref() {
                    req = req.header("mcp-session-id", sid);
                }
                let mut resp = req
                    .send(msg.to_string())
                    .map_err(|e| format!("HTTP request failed: {e}"))?;
                let status = resp.status().as_u16();
                let got: Vec<(String, String)> = resp
                    .headers()
                    .iter()
                    .filter_map(|(k, v)| Some((k.to_string(), v.to_str().ok()?.to_string())))
                    .collect();
                let header = |n: &str| {
                    got.iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(n))
                        .map(|(_, v)| v.clone())
                };
                if let Some(sid) = header("mcp-session-id") {
                    *session = Some(sid);
                }
                let ctype = header("content-type").unwrap_or_default();
                let retry_after_ms =
                    longcall::time::retry_after_header_ms(&got, crate::serve::epoch_ms());
                let body = resp
                    .body_mut()
                    .read_to_vec()
                    .map_err(|e| format!("reading the HTTP answer failed: {e}"))?;
                // The messages the answer carries, as the endpoint reads them (rule E-67).
                let mut messages = Vec::new();
                longcall::wire::sse::each_message(status, &got, &body, |m| {
                    messages.extend(serde_json::from_slice::<Value>(m));
                });
                let mut answer = Answer {
                    msg: None,
                    retry_after_ms,
                    http_status: Some(status),
                };
                let mut http = json!({"status": status, "contentType": ctype});
                if let (Some(r), Some(o)) = (retry_after_ms, http.as_object_mut()) {
                    o.insert("retryAfterMs".into(), r.into());
                }
                if messages.is_empty() && id.is_some() {
                    self.record("s2c", Some(http.clone()), Value::Null);
                }
                for m in messages {
                    let mine =
                        id.is_some() && m.get("id") == id.as_ref() && m.get("method").is_none();
                    self.record("s2c", Some(http.clone()), m.clone());
                    if mine {
                        answer.msg = Some(m);
                    }
                }
                Ok(answer)
            }
            Channel::Stdio { .. } => self.send_stdio(&msg, id),
        }
    }

    fn stdio_write(&mut self, v: &Value) -> Result<(), String> {
        match &mut self.channel {
            Channel::Stdio { stdin, .. } => writeln!(stdin, "{v}")
                .and_then(|_| stdin.flush())
                .map_err(|e| format!("the server's stdin is closed: {e}")),
            Channel::Http { .. } => Err("not a stdio session".into()),
        }
    }

    fn send_stdio(&mut self, msg: &Value, id: Option<Value>) -> Result<Answer, String> {
        self.stdio_write(msg)?;
        let Some(id) = id else {
            return Ok(Answer::default());
        };
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let got = match &self.channel {
                Channel::Stdio { rx, .. } => rx.recv_timeout(left),
                Channel::Http { .. } => return Err("not a stdio session".into()),
            };
            let line = match got {
                Ok(l) => l,
                // As over HTTP, where the client's timeout fails the request: the run cannot go
                // on against a server that stopped answering, and must not pass as clean.
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "{} got no answer in {} s (--answer-seconds)",
                        msg.get("method")
                            .and_then(Value::as_str)
                            .unwrap_or("a request"),
                        self.timeout.as_secs()
                    ))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err("the server command exited".into())
                }
            };
            let Ok(m) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            let mine = m.get("id") == Some(&id) && m.get("method").is_none();
            let server_request = m.get("method").is_some() && m.get("id").is_some();
            self.record("s2c", None, m.clone());
            if server_request {
                // The probe offers no client features: it declines what the server asks.
                let reply = json!({"jsonrpc": "2.0", "id": m.get("id"),
                    "error": {"code": -32601, "message": "not supported by longcall probe"}});
                self.record("c2s", None, reply.clone());
                self.stdio_write(&reply)?;
            }
            if mine {
                return Ok(Answer {
                    msg: Some(m),
                    ..Answer::default()
                });
            }
        }
    }
}

/// Streamable HTTP on 2025: every request after `initialize` (and every notification) names the
/// negotiated version, or a server that also speaks 2026 reads it as a 2026 request.
fn version_2025() -> Map<String, Value> {
    let mut h = Map::new();
    h.insert(
        "MCP-Protocol-Version".into(),
        longcall::wire::mcp2025::PROTOCOL_VERSION.into(),
    );
    h
}

/// The probe's name in its requests, servers' logs telling it from other clients.
fn probe_client() -> ClientInfo {
    ClientInfo {
        name: "longcall-probe".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}
