//! Not yet written.

use crate::interpreter::Vm;

pub fn init(_vm: &mut Vm) {}
