//! The tracker on arbitrary inputs and times: see `longcall_fuzz::Driver::check` for the
//! invariants (floors, Retry-After, deadline, ask once, honest button, settle once, errors leave
//! the tracker unchanged, no panic).
#![no_main]
use libfuzzer_sys::fuzz_target;
use longcall_fuzz::{model_of, Driver, Scenario};

fuzz_target!(|sc: Scenario| {
    let model = model_of(sc.model);
    let Some(mut d) = Driver::new(model, sc.config.build()) else {
        return;
    };
    for op in sc.ops.iter().take(256) {
        d.step(op, false);
    }
});
