//! Not yet written.

use crate::interpreter::Vm;

pub fn init(_vm: &mut Vm) {}

/// `Date.prototype.toISOString` text for a time value, or None if it is invalid.
pub fn to_iso_string(_t: f64) -> Option<String> {
    None
}
