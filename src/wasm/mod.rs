//! The JavaScript face of ctxfold: the only module that knows about wasm-bindgen.
//!
//! Each submodule exports one group of functions; they translate arguments, call the
//! core, and turn core errors into JS errors ([`error`]).

mod count;
mod error;
mod vocab;
