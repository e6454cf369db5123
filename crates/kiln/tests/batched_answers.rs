//! Many host calls answered cheaply: `Runtime::resume_many` (several answers, one step)
//! and `CallReporting::New` (a suspension lists only the calls the host has not seen).

use kiln::host::CallReporting;
use kiln::snapshot::Snapshot;
use kiln::{
    CallId, ErrorKind, ErrorReport, HostError, HostReply, HostValue, Options, Outcome, PendingCall,
    Runtime,
};

/// A fan-out whose reactions log the order they run in; the result is the log and the
/// sum of the answers.
const FAN_OUT: &str = "
    const log = [];
    const values = await Promise.all(['a', 'b', 'c', 'd'].map(k =>
        tools.get(k).then(v => { log.push(k + '=' + v); return v; }, e => { log.push(k + '!' + e.message); return 0; })));
    ({ log: log.join(' '), sum: values.reduce((s, v) => s + v, 0) })";

fn runtime() -> Runtime {
    let mut rt = Runtime::new();
    rt.register_async("tools.get");
    rt
}

fn suspended(outcome: Result<Outcome, ErrorReport>) -> Vec<PendingCall> {
    match outcome {
        Ok(Outcome::Suspended(calls)) => calls,
        other => panic!("expected to suspend, got {other:?}"),
    }
}

fn complete(outcome: Result<Outcome, ErrorReport>) -> HostValue {
    match outcome {
        Ok(Outcome::Complete(v)) => v,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn refused(outcome: Result<Outcome, ErrorReport>) -> ErrorReport {
    match outcome {
        Err(e) => e,
        other => panic!("expected an error, got {other:?}"),
    }
}

fn ids(calls: &[PendingCall]) -> Vec<CallId> {
    calls.iter().map(|c| c.id).collect()
}

fn result(log: &str, sum: i32) -> HostValue {
    HostValue::object([("log", log.into()), ("sum", sum.into())])
}

#[test]
fn a_batch_settles_in_its_order_and_runs_the_guest_once() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let args: Vec<_> = calls.iter().map(|c| c.args[0].clone()).collect();
    assert_eq!(args, ["a", "b", "c", "d"].map(HostValue::from));
    let [a, b, c, d] = ids(&calls)[..] else {
        panic!("four calls")
    };
    let done = rt.resume_many([
        (c, Ok(3.into())),
        (a, Ok(1.into())),
        (d, Err(HostError::new("gone"))),
        (b, Ok(2.into())),
    ]);
    assert_eq!(complete(done), result("c=3 a=1 d!gone b=2", 6));
    assert!(rt.pending_calls().is_empty());
}

#[test]
fn a_batch_gives_what_one_resume_per_answer_gives() {
    let mut one_by_one = runtime();
    let calls = suspended(one_by_one.start(FAN_OUT, "agent.js"));
    let mut last = None;
    for (i, call) in calls.iter().enumerate().rev() {
        last = Some(one_by_one.resume(call.id, Ok(HostValue::from(i as i32 + 1))));
    }
    let expected = complete(last.unwrap());
    assert_eq!(expected, result("d=4 c=3 b=2 a=1", 10));

    let mut batched = runtime();
    let calls = suspended(batched.start(FAN_OUT, "agent.js"));
    let answers = calls
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| (c.id, Ok(HostValue::from(i as i32 + 1))));
    assert_eq!(complete(batched.resume_many(answers)), expected);
}

#[test]
fn part_of_the_calls_answered_leaves_the_rest_outstanding() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let left =
        suspended(rt.resume_many([(calls[3].id, Ok(4.into())), (calls[1].id, Ok(2.into()))]));
    assert_eq!(ids(&left), [calls[0].id, calls[2].id]);
    let done = rt.resume_many([(calls[0].id, Ok(1.into())), (calls[2].id, Ok(3.into()))]);
    assert_eq!(complete(done), result("d=4 b=2 a=1 c=3", 10));
}

#[test]
fn an_unknown_id_refuses_the_whole_batch() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let e = refused(rt.resume_many([(calls[0].id, Ok(100.into())), (999, Ok(1.into()))]));
    assert_eq!(e.kind, ErrorKind::Host);
    assert_eq!(e.message, "host call 999 is not outstanding");
    // nothing was applied: every call is still outstanding, the first one included
    assert_eq!(rt.pending_calls(), calls);
    let answers = calls
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id, Ok(HostValue::from(i as i32 + 1))));
    assert_eq!(
        complete(rt.resume_many(answers)),
        result("a=1 b=2 c=3 d=4", 10)
    );
}

#[test]
fn a_call_answered_twice_in_one_batch_refuses_the_whole_batch() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let e = refused(rt.resume_many([
        (calls[0].id, Ok(1.into())),
        (calls[1].id, Ok(2.into())),
        (calls[0].id, Err(HostError::new("again"))),
    ]));
    assert_eq!(e.kind, ErrorKind::Host);
    assert_eq!(
        e.message,
        format!(
            "host call {} is answered more than once in one batch",
            calls[0].id
        )
    );
    assert_eq!(rt.pending_calls(), calls);
    let answers = calls.iter().map(|c| (c.id, Ok(HostValue::from(5))));
    assert_eq!(
        complete(rt.resume_many(answers)),
        result("a=5 b=5 c=5 d=5", 20)
    );
}

#[test]
fn a_call_answered_before_is_refused_in_a_later_batch() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    suspended(rt.resume(calls[0].id, Ok(1.into())));
    let e = refused(rt.resume_many([(calls[1].id, Ok(2.into())), (calls[0].id, Ok(1.into()))]));
    assert_eq!(
        e.message,
        format!("host call {} is not outstanding", calls[0].id)
    );
    assert_eq!(rt.pending_calls(), calls[1..]);
}

#[test]
fn a_value_the_guest_cannot_hold_refuses_the_whole_batch() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let mut deep = HostValue::Null;
    for _ in 0..1000 {
        deep = HostValue::Array(vec![deep]);
    }
    let e = refused(rt.resume_many([(calls[0].id, Ok(1.into())), (calls[1].id, Ok(deep))]));
    assert_eq!(e.kind, ErrorKind::Host);
    assert!(
        e.message.starts_with(&format!(
            "the answer to host call {} is invalid: ",
            calls[1].id
        )),
        "{}",
        e.message
    );
    assert_eq!(rt.pending_calls(), calls);
    let answers = calls.iter().map(|c| (c.id, Ok(HostValue::from(1))));
    assert_eq!(
        complete(rt.resume_many(answers)),
        result("a=1 b=1 c=1 d=1", 4)
    );
}

#[test]
fn an_empty_batch_is_refused() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let e = refused(rt.resume_many([]));
    assert_eq!(e.kind, ErrorKind::Host);
    assert_eq!(e.message, "resume_many was given no answers");
    assert_eq!(rt.pending_calls(), calls);
}

#[test]
fn the_step_after_a_batch_reports_the_calls_it_made() {
    let mut rt = runtime();
    let script = "
        const [x, y] = await Promise.all([tools.get('x'), tools.get('y')]);
        const [z, w] = await Promise.all([tools.get(x + y), tools.get(y + x)]);
        z + w";
    let first = suspended(rt.start(script, "agent.js"));
    let second =
        suspended(rt.resume_many([(first[1].id, Ok("2".into())), (first[0].id, Ok("1".into()))]));
    let args: Vec<_> = second.iter().map(|c| c.args[0].clone()).collect();
    assert_eq!(args, [HostValue::from("12"), HostValue::from("21")]);
    assert!(second.iter().all(|c| c.id > first[1].id));
    let done = rt.resume_many([
        (second[0].id, Ok("a".into())),
        (second[1].id, Ok("b".into())),
    ]);
    assert_eq!(complete(done), "ab".into());
}

#[test]
fn a_thousand_calls_answered_in_one_batch() {
    let mut rt = runtime();
    rt.set_call_reporting(CallReporting::New);
    let script = "
        const keys = Array.from({ length: 1000 }, (_, i) => i);
        const values = await Promise.all(keys.map(k => tools.get(k)));
        values.every((v, i) => v === i * 2) ? values.length : 'wrong'";
    let calls = suspended(rt.start(script, "agent.js"));
    assert_eq!(calls.len(), 1000);
    let answers = calls.iter().rev().map(|c| {
        (
            c.id,
            Ok(HostValue::Number(c.args[0].as_f64().unwrap() * 2.0)),
        )
    });
    assert_eq!(complete(rt.resume_many(answers)), 1000.into());
}

// ---- which calls a suspension lists ----

#[test]
fn by_default_every_suspension_lists_every_outstanding_call() {
    let mut rt = runtime();
    assert_eq!(rt.call_reporting(), CallReporting::Outstanding);
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    let left = suspended(rt.resume(calls[2].id, Ok(3.into())));
    assert_eq!(ids(&left), [calls[0].id, calls[1].id, calls[3].id]);
}

#[test]
fn with_new_reporting_a_suspension_lists_only_calls_not_seen() {
    let mut rt = runtime();
    rt.set_call_reporting(CallReporting::New);
    let script = "
        const first = Promise.all([tools.get('a'), tools.get('b'), tools.get('c')]);
        const late = tools.get('d').then(v => tools.get('e' + v));
        const [a, b, c] = await first;
        a + b + c + await late";
    let calls = suspended(rt.start(script, "agent.js"));
    assert_eq!(calls.len(), 4);
    // an answer that leads to no new call: the suspension lists nothing
    assert!(suspended(rt.resume(calls[0].id, Ok("1".into()))).is_empty());
    // the guest still waits for three calls, which the host knows of
    assert_eq!(rt.pending_calls(), calls[1..]);
    // the answer to 'd' makes the call 'e4'; only that one is new
    let new =
        suspended(rt.resume_many([(calls[3].id, Ok(4.into())), (calls[1].id, Ok("2".into()))]));
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].args, vec![HostValue::from("e4")]);
    assert!(suspended(rt.resume(new[0].id, Ok("5".into()))).is_empty());
    assert_eq!(
        complete(rt.resume(calls[2].id, Ok("3".into()))),
        "1235".into()
    );
}

#[test]
fn new_reporting_leaves_out_calls_a_host_function_deferred() {
    let mut rt = Runtime::new();
    rt.set_call_reporting(CallReporting::New);
    rt.register_async("tools.get");
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let shown = seen.clone();
    rt.register_deferrable("tools.later", move |call| {
        shown.borrow_mut().push(call.id);
        HostReply::Defer
    });
    let script = "
        const [a, b, c] = await Promise.all([tools.later(1), tools.get(2), tools.later(3)]);
        [a, b, c].join()";
    let calls = suspended(rt.start(script, "agent.js"));
    // the deferred calls were shown to their function; only the asynchronous one is new
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].args, vec![HostValue::from(2)]);
    let deferred = seen.borrow().clone();
    assert_eq!(deferred.len(), 2);
    assert_eq!(rt.pending_calls().len(), 3);
    let done = rt.resume_many([
        (deferred[1], Ok("c".into())),
        (calls[0].id, Ok("b".into())),
        (deferred[0], Ok("a".into())),
    ]);
    assert_eq!(complete(done), "a,b,c".into());
}

#[test]
fn new_reporting_applies_to_every_execution_of_the_runtime() {
    let mut rt = runtime();
    rt.set_call_reporting(CallReporting::New);
    for round in 0..3 {
        let calls = suspended(rt.start("(await tools.get(1)) + (await tools.get(2))", "a.js"));
        assert_eq!(calls.len(), 1, "round {round}");
        let next = suspended(rt.resume(calls[0].id, Ok(10.into())));
        assert_eq!(next.len(), 1, "round {round}");
        assert_eq!(complete(rt.resume(next[0].id, Ok(5.into()))), 15.into());
    }
}

// ---- snapshots in the middle of a batch of calls ----

fn restore(bytes: &[u8]) -> Runtime {
    let snapshot = Snapshot::open(bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    rt.register_async("tools.get");
    rt
}

#[test]
fn a_snapshot_after_a_partial_batch_restores_the_calls_left() {
    let mut rt = runtime();
    rt.set_call_reporting(CallReporting::New);
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    assert!(
        suspended(rt.resume_many([(calls[1].id, Ok(2.into())), (calls[3].id, Ok(4.into()))]))
            .is_empty()
    );
    let bytes = rt.snapshot(None).unwrap();
    drop(rt);

    let mut restored = restore(&bytes);
    assert_eq!(restored.call_reporting(), CallReporting::Outstanding);
    assert_eq!(
        restored.pending_calls(),
        vec![calls[0].clone(), calls[2].clone()]
    );
    let done = restored.resume_many([(calls[2].id, Ok(3.into())), (calls[0].id, Ok(1.into()))]);
    assert_eq!(complete(done), result("b=2 d=4 c=3 a=1", 10));
}

#[test]
fn a_refused_batch_leaves_a_snapshot_of_the_suspension_as_it_was() {
    let mut rt = runtime();
    let calls = suspended(rt.start(FAN_OUT, "agent.js"));
    refused(rt.resume_many([(calls[0].id, Ok(1.into())), (calls[0].id, Ok(1.into()))]));
    let mut restored = restore(&rt.snapshot(None).unwrap());
    assert_eq!(restored.pending_calls(), calls);
    let answers = calls.iter().map(|c| (c.id, Ok(HostValue::from(2))));
    assert_eq!(
        complete(restored.resume_many(answers)),
        result("a=2 b=2 c=2 d=2", 8)
    );
}

#[test]
fn after_a_restore_new_reporting_lists_only_calls_made_since() {
    let script = "
        const [a, b] = await Promise.all([tools.get('a'), tools.get('b')]);
        a + b + await tools.get('c')";
    let mut rt = runtime();
    let calls = suspended(rt.start(script, "agent.js"));
    let mut restored = restore(&rt.snapshot(None).unwrap());
    restored.set_call_reporting(CallReporting::New);
    // the calls from before the snapshot are read with pending_calls, not listed again
    assert_eq!(restored.pending_calls(), calls);
    assert!(suspended(restored.resume(calls[0].id, Ok("1".into()))).is_empty());
    let new = suspended(restored.resume(calls[1].id, Ok("2".into())));
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].args, vec![HostValue::from("c")]);
    assert!(new[0].id > calls[1].id);
    assert_eq!(
        complete(restored.resume(new[0].id, Ok("3".into()))),
        "123".into()
    );
}
