//! Suspended executions: generators, async functions and async generators
//! keep their frame here (registers copied off the stack) between
//! resumptions.

use super::{CodeBlock, Frame, ReturnTo};
use crate::heap::{EnvId, ObjectId};
use crate::value::Value;
use std::collections::VecDeque;
use std::rc::Rc;

/// How a suspended execution is resumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResumeMode {
    Next,
    Throw,
    Return,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorStatus {
    SuspendedStart,
    SuspendedYield,
    Executing,
    /// suspended at `await`: the frame is saved, but requests to an async generator wait
    /// as they would while it runs
    Awaiting,
    /// an async generator awaiting the value of the `return` request at the head of its
    /// queue: when its frame is saved it resumes with the result, when it has completed it
    /// settles the request
    AwaitingReturn,
    Completed,
}

impl GeneratorStatus {
    /// Whether an async generator is busy: a new request waits in its queue.
    pub fn is_busy(self) -> bool {
        matches!(
            self,
            GeneratorStatus::Executing
                | GeneratorStatus::Awaiting
                | GeneratorStatus::AwaitingReturn
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuspendKind {
    Generator,
    Async,
    AsyncGenerator,
}

/// A frame taken off the stack.
#[derive(Clone, Debug)]
pub struct SavedFrame {
    pub code: Rc<CodeBlock>,
    pub pc: u32,
    pub env: Option<EnvId>,
    pub env_depth: u16,
    pub callee: ObjectId,
    pub new_target: Value,
    pub argc: u32,
    /// registers, then copied arguments (`args_at` is relative to the registers' start)
    pub values: Vec<Value>,
    pub args_at: u32,
}

impl SavedFrame {
    pub fn save(frame: &Frame, stack: &[Value]) -> SavedFrame {
        let base = frame.base as usize;
        SavedFrame {
            code: frame.code.clone(),
            pc: frame.pc,
            env: frame.env,
            env_depth: frame.env_depth,
            callee: frame.callee,
            new_target: frame.new_target,
            argc: frame.argc,
            values: stack[base..].to_vec(),
            args_at: frame.args_at.saturating_sub(frame.base),
        }
    }

    /// Put the frame back on top of `stack`; `caller_realm` is the realm running now.
    pub fn restore(
        &self,
        stack: &mut Vec<Value>,
        generator: ObjectId,
        caller_realm: crate::realm::RealmId,
    ) -> Frame {
        let base = stack.len() as u32;
        stack.extend_from_slice(&self.values);
        Frame {
            code: self.code.clone(),
            pc: self.pc,
            base,
            env: self.env,
            env_depth: self.env_depth,
            callee: self.callee,
            new_target: self.new_target,
            argc: self.argc,
            args_at: base + self.args_at,
            ret: ReturnTo::Exit,
            construct: false,
            generator: Some(generator),
            caller_realm,
        }
    }
}

/// One request queued on an async generator.
#[derive(Clone, Copy, Debug)]
pub struct AsyncGeneratorRequest {
    pub mode: ResumeMode,
    pub value: Value,
    /// the promise returned to the caller of next/throw/return
    pub promise: ObjectId,
}

/// The state of a generator, async function or async generator.
#[derive(Clone, Debug)]
pub struct GeneratorState {
    pub kind: SuspendKind,
    pub status: GeneratorStatus,
    pub frame: Option<SavedFrame>,
    /// set when resuming: the instruction that suspended re-executes and consumes it
    pub resume: Option<(ResumeMode, Value)>,
    /// async functions: the promise the call returned
    pub promise: Option<ObjectId>,
    /// async generators: pending next/throw/return requests
    pub queue: VecDeque<AsyncGeneratorRequest>,
}

impl GeneratorState {
    pub fn new(kind: SuspendKind) -> Self {
        GeneratorState {
            kind,
            status: GeneratorStatus::SuspendedStart,
            frame: None,
            resume: None,
            promise: None,
            queue: VecDeque::new(),
        }
    }

    pub fn trace(&self, out: &mut Vec<Value>, envs: &mut Vec<EnvId>) {
        if let Some(f) = &self.frame {
            out.extend_from_slice(&f.values);
            out.push(Value::object(f.callee));
            out.push(f.new_target);
            envs.extend(f.env);
        }
        if let Some((_, v)) = self.resume {
            out.push(v);
        }
        out.extend(self.promise.map(Value::object));
        for r in &self.queue {
            out.push(r.value);
            out.push(Value::object(r.promise));
        }
    }

    pub fn owned_bytes(&self) -> usize {
        self.frame.as_ref().map_or(0, |f| f.values.capacity() * 8) + self.queue.len() * 24
    }
}
