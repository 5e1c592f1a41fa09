//! The tracker on arbitrary inputs and times: see `longcall_testkit::Checked::check` for the
//! invariants (floors, Retry-After, deadline, ask once, honest button, settle once, errors leave
//! the tracker unchanged, no panic).
#![no_main]
use libfuzzer_sys::fuzz_target;
use longcall_fuzz::{model_of, Checked, Scenario, Step};

fuzz_target!(|sc: Scenario| {
    let model = model_of(sc.model);
    let Some(mut d) = Checked::new(model, sc.config.build()) else {
        return;
    };
    for op in sc.ops.iter().take(256) {
        d.step(op, false);
    }
});
