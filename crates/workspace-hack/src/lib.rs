//! No code: see `Cargo.toml` for why this crate exists.
