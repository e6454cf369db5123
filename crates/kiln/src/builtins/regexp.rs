//! RegExp: compiled patterns (the `regress` crate) and their built-ins.

use crate::JsResult;
use crate::heap::StringId;
use crate::interpreter::{CodeBlock, Vm};
use crate::value::Value;

/// The internal slots of a RegExp object.
#[derive(Clone, Debug)]
pub struct RegExpData {
    pub matcher: std::rc::Rc<regress::Regex>,
    pub source: StringId,
    pub flags: StringId,
}

impl RegExpData {
    pub fn trace(&self, out: &mut Vec<Value>) {
        out.push(Value::string(self.source));
        out.push(Value::string(self.flags));
    }
}

pub fn init(_vm: &mut Vm) {}

impl Vm {
    /// A regular expression literal: a new RegExp object each evaluation.
    pub(crate) fn regexp_literal(&mut self, _code: &CodeBlock, _idx: u16) -> JsResult<Value> {
        Err(self.syntax_error("RegExp is not supported yet"))
    }
}
