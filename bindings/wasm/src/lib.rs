//! WebAssembly bindings of the longcall core, for the npm package `longcall` (`pkg/`).
//!
//! Every export lives in a small module by concern and follows three rules:
//!
//! * **No panics on any JavaScript value.** A panic aborts (`panic = "abort"` in the `wasm`
//!   profile) and kills the module instance for the whole page, so arguments a caller could get
//!   wrong are taken as [`JsValue`](wasm_bindgen::JsValue) and converted with typed errors
//!   ([`args`]).
//! * **Errors are JavaScript `Error`s with a `code`.** Every export returns
//!   [`errors::JsResult`]; a [`longcall::Error`] becomes an `Error` whose `message` is its
//!   `Display` and whose `code` is [`longcall::Error::code`] ([`errors::to_js`]).
//! * **Per-event paths take numbers** (`*Code` exports) and never throw: bad input yields the
//!   sentinel [`args::BAD`].
//!
//! The pure parts (string in, verdict out) are plain Rust functions next to their exports so that
//! host `cargo test` covers them; the JavaScript side is tested from `pkg/test/` in Node and in
//! headless Chromium.
//!
//! Adding an export: write `#[wasm_bindgen(js_name = camelCase)] pub fn ...` in the module of its
//! concern (or a new module declared below), list the name in `pkg/api.js`, type it in
//! `pkg/index.d.ts`, and add cases to a `pkg/test/shared/*.cases.mjs` file. A new code table
//! goes in [`tables`]; `npm --prefix pkg run codes` regenerates `pkg/codes.js` from it.
#![deny(missing_docs)]
// The small module (`client` alone) is built without std (see Cargo.toml's `std` feature).
#![cfg_attr(all(target_family = "wasm", not(feature = "std")), no_std)]

extern crate alloc;

/// What std's prelude gives the modules of the small build, which has no std (each of them
/// imports it; in the other builds these are the same items). Which of them a build uses
/// depends on its features.
#[allow(unused_imports)]
mod prelude {
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::format;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec::Vec;
}

/// Without std, a panic (none is expected: see the rules above) traps at once; the module
/// instance is then unusable, exactly as with std's `panic = "abort"`.
#[cfg(all(target_family = "wasm", not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

// Talc instead of Rust's default dlmalloc: smaller in the module, and the builds are
// single-threaded (no `atomics`), which its unsynchronized cell requires.
#[cfg(all(
    target_family = "wasm",
    not(target_feature = "atomics"),
    feature = "std"
))]
#[global_allocator]
static ALLOC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

// The small module (no std) takes lol_alloc's free list instead: 0.5 KB gzip less than talc,
// which is most of what is left of that module's allocator. Its O(free blocks) allocation costs
// nothing a page can measure there (a tracker allocates a few times per lifecycle), and freed
// blocks next to each other are merged, so memory freed by one tracker serves the next.
#[cfg(all(target_family = "wasm", not(feature = "std")))]
#[global_allocator]
static ALLOC: lol_alloc::LockedAllocator<lol_alloc::FreeListAllocator> =
    lol_alloc::LockedAllocator::new(lol_alloc::FreeListAllocator::new());

pub mod args;
#[cfg(feature = "client")]
pub mod button;
#[cfg(any(feature = "full", feature = "watch", feature = "server"))]
pub mod case;
#[cfg(any(feature = "client", feature = "watch", feature = "vectors"))]
pub mod config;
#[cfg(feature = "full")]
pub mod decide;
#[cfg(feature = "full")]
pub mod endpoint;
pub mod errors;
#[cfg(feature = "server")]
pub mod gate;
pub mod json;
#[cfg(feature = "client")]
pub mod rules;
#[cfg(feature = "server")]
pub mod server;
#[cfg(any(feature = "client", feature = "vectors"))]
pub mod tables;
#[cfg(feature = "client")]
pub mod tracker;
#[cfg(feature = "vectors")]
pub mod vector;
#[cfg(feature = "watch")]
pub mod watch;
#[cfg(feature = "full")]
pub mod wave;
#[cfg(feature = "full")]
pub mod wire;
