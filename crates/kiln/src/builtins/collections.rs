//! Map, Set, WeakMap and WeakSet over an insertion-ordered hash table.

use crate::interpreter::Vm;
use crate::value::Value;

/// An insertion-ordered map from values (SameValueZero) to values; sets use the keys only.
/// Deleted entries leave tombstones so live iterators keep their position.
#[derive(Clone, Debug, Default)]
pub struct OrderedMap {
    pub entries: Vec<Option<(Value, Value)>>,
}

impl OrderedMap {
    pub fn owned_bytes(&self) -> usize {
        self.entries.capacity() * 24
    }
    pub fn trace(&self, out: &mut Vec<Value>) {
        for (k, v) in self.entries.iter().flatten() {
            out.push(*k);
            out.push(*v);
        }
    }
    /// Weak collections keep values alive but not keys.
    pub fn trace_values(&self, out: &mut Vec<Value>) {
        for (_, v) in self.entries.iter().flatten() {
            out.push(*v);
        }
    }
}

pub fn init(_vm: &mut Vm) {}
