//! Snapshots: a suspended execution written to bytes, restored in a fresh runtime (and
//! in a fresh process), continuing with the same heap, promises and host calls.

use kiln::snapshot::{Snapshot, SnapshotErrorKind};
use kiln::{ErrorKind, HostError, HostValue, Limits, Options, Outcome, Runtime};

/// Three tools called in parallel, then a reduction in code.
const AGENT: &str = r#"
(async () => {
    const [users, orders, rates] = await Promise.all([
        tools.users({ active: true }),
        tools.orders('2026-11'),
        tools.rates(),
    ]);
    const byId = new Map(users.map(u => [u.id, u.name]));
    const totals = {};
    for (const o of orders) {
        const name = byId.get(o.user) ?? 'unknown';
        totals[name] = (totals[name] ?? 0) + o.amount * rates[o.currency];
    }
    return Object.entries(totals).sort((a, b) => b[1] - a[1]);
})()
"#;

fn agent_runtime() -> Runtime {
    let mut rt = Runtime::new();
    for name in ["tools.users", "tools.orders", "tools.rates"] {
        rt.register_async(name);
    }
    rt
}

fn answer(capability: &str) -> HostValue {
    let parse = |json: &str| serde_json::from_str::<HostValue>(json).unwrap();
    match capability {
        "tools.users" => parse(r#"[{"id": 1, "name": "ada"}, {"id": 2, "name": "alan"}]"#),
        "tools.orders" => parse(
            r#"[{"user": 1, "amount": 10, "currency": "EUR"},
                {"user": 2, "amount": 5, "currency": "USD"},
                {"user": 1, "amount": 1, "currency": "USD"},
                {"user": 3, "amount": 2, "currency": "EUR"}]"#,
        ),
        "tools.rates" => parse(r#"{"EUR": 1.5, "USD": 1}"#),
        other => panic!("unexpected capability {other}"),
    }
}

fn suspended(outcome: Result<Outcome, kiln::ErrorReport>) -> Vec<kiln::PendingCall> {
    match outcome {
        Ok(Outcome::Suspended(calls)) => calls,
        other => panic!("expected a suspension, got {other:?}"),
    }
}

/// Answer every call in order; the last answer must complete the execution.
fn answer_all(rt: &mut Runtime, calls: &[kiln::PendingCall]) -> HostValue {
    let mut outcome = None;
    for c in calls {
        outcome = Some(rt.resume(c.id, Ok(answer(&c.capability))).unwrap());
    }
    match outcome {
        Some(Outcome::Complete(v)) => v,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn restore(bytes: &[u8]) -> Runtime {
    let snapshot = Snapshot::open(bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    for name in ["tools.users", "tools.orders", "tools.rates"] {
        rt.register_async(name);
    }
    rt
}

#[test]
fn a_restored_agent_finishes_with_the_same_result() {
    let mut direct = agent_runtime();
    let calls = suspended(direct.start(AGENT, "agent.js"));
    assert_eq!(calls.len(), 3);
    let expected = answer_all(&mut direct, &calls);
    assert_eq!(
        serde_json::to_string(&expected).unwrap(),
        r#"[["ada",16],["alan",5],["unknown",3]]"#
    );

    let mut first = agent_runtime();
    let calls = suspended(first.start(AGENT, "agent.js"));
    let bytes = first.snapshot(None).unwrap();
    drop(first);
    let mut second = restore(&bytes);
    assert_eq!(second.pending_calls(), calls);
    assert_eq!(answer_all(&mut second, &calls), expected);
}

/// Collections before the snapshot leave free slots among the objects and environments;
/// the restore's chain checks pass over them (a `gc-stress` build panics on any read of a
/// free slot: `cargo test -p kiln --features gc-stress --test snapshot`).
#[test]
fn a_snapshot_taken_after_collections_restores() {
    let source = r#"
        let kept = [];
        for (let i = 0; i < 20000; i++) {
            const garbage = { i, inner: { i } };
            const scope = () => garbage;
            if (i % 5000 === 0) kept.push(scope);
        }
        (async () => {
            const [users] = await Promise.all([tools.users({})]);
            return [users.length, kept.length, kept[3]().inner.i];
        })()
    "#;
    let mut first = agent_runtime();
    let calls = suspended(first.start(source, "garbage.js"));
    let bytes = first.snapshot(None).unwrap();
    drop(first);
    let mut second = restore(&bytes);
    assert_eq!(
        serde_json::to_string(&answer_all(&mut second, &calls)).unwrap(),
        "[2,4,15000]"
    );
}

#[test]
fn a_snapshot_can_be_taken_again_after_a_partial_resume() {
    let mut rt = agent_runtime();
    let calls = suspended(rt.start(AGENT, "agent.js"));
    let mut rt = restore(&rt.snapshot(None).unwrap());
    let rest = suspended(rt.resume(calls[0].id, Ok(answer(&calls[0].capability))));
    assert_eq!(rest, calls[1..].to_vec());
    let mut rt = restore(&rt.snapshot(None).unwrap());
    let v = answer_all(&mut rt, &rest);
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"[["ada",16],["alan",5],["unknown",3]]"#
    );
}

/// Much of the language's state at once: closures over environments, class instances
/// with private fields and accessors, a suspended generator, collections, a regular
/// expression's lastIndex, typed arrays, symbols, BigInts, dates, template objects,
/// global lexical bindings, a direct eval's closure, a frozen object, a proxy, ropes.
const STATEFUL: &str = r#"
let counter = 0;
const bump = () => ++counter;
class Account {
    #balance;
    static count = 0;
    constructor(owner, balance) { this.owner = owner; this.#balance = balance; Account.count++; }
    get balance() { return this.#balance; }
    deposit(n) { this.#balance += n; return this; }
}
function* ids() { let i = 100; while (true) yield i++; }
const gen = ids();
gen.next();
const tag = (s) => s;
const tpl = () => tag`a${1}b`;
const firstTemplate = tpl();
const re = /o(\w)/g;
re.exec('foo boa');
const sym = Symbol('secret');
const registered = Symbol.for('app.key');
const weak = new WeakMap();
const key = {};
weak.set(key, 'kept');
const bytes = new Uint8Array([1, 2, 3, 250]);
const view = new DataView(bytes.buffer);
const evalClosure = eval('(function () { let hidden = 7; return () => hidden * 6; })()');
let rope = '';
for (let i = 0; i < 200; i++) rope += String.fromCharCode(97 + (i % 26));
const frozen = Object.freeze({ deep: [1, 2, { x: 'y' }] });
const proxy = new Proxy({}, { get: (t, k) => `proxied ${String(k)}` });
const temporal = [
    Temporal.ZonedDateTime.from('2026-03-29T01:30+01:00[Europe/Paris]'),
    Temporal.Duration.from({ hours: 1, milliseconds: 1500 }),
    Temporal.PlainMonthDay.from('--02-29'),
    Temporal.Instant.fromEpochNanoseconds(-1n),
    new Temporal.PlainDate(2024, 2, 29, 'hebrew'),
    Temporal.PlainTime.from('12:34:56.789123456'),
    Temporal.PlainDateTime.from('2020-01-01T00:00[u-ca=japanese]'),
    new Temporal.PlainYearMonth(2020, 2, 'iso8601', 15),
];
const state = {
    accounts: [new Account('ada', 10), new Account('alan', 5)],
    map: new Map([['a', 1], [2, 'b'], [key, sym]]),
    set: new Set(['x', 'y']),
    big: 2n ** 80n,
    date: new Date(Date.UTC(2026, 10, 22)),
    [sym]: 'symbol-keyed',
};
delete state.set;
state.set = new Set(['x', 'y', 'z']);
const weakState = new WeakRef(state);
const finalized = [];
const registry = new FinalizationRegistry(held => finalized.push(held));
registry.register(state, 'state', state);

(async () => {
    const reply = await tools.wait('now');
    bump();
    state.accounts[0].deposit(reply.amount);
    return [
        counter,
        Account.count,
        state.accounts.map(a => `${a.owner}:${a.balance}`).join(','),
        gen.next().value,
        gen.next().value,
        tpl() === firstTemplate,
        re.lastIndex,
        re.exec('foo boa')[1],
        sym.description,
        Symbol.for('app.key') === registered,
        weak.get(key),
        Array.from(bytes).join(','),
        view.getUint16(2),
        evalClosure(),
        rope.length,
        rope.slice(24, 28),
        Object.isFrozen(frozen) && frozen.deep[2].x,
        proxy.anything,
        state.map.get('a'), state.map.get(2), state.map.get(key) === sym,
        [...state.set].join(''),
        String(state.big),
        state.date.toISOString(),
        state[sym],
        typeof Account, Object.keys(state).join(','),
        reply.note,
        weakState.deref() === state,
        registry.unregister(state),
        temporal.map(t => t.toString({ calendarName: 'always' })).join(' '),
        temporal[0].add({ hours: 1 }).toString(),
        temporal[1].milliseconds,
    ];
})()
"#;

fn stateful_result(snapshot_first: bool) -> String {
    let reply = HostValue::object([("amount", 32.into()), ("note", "done".into())]);
    finish_after_wait(STATEFUL, "state.js", snapshot_first, reply)
}

/// Run `source` until its one `tools.wait` call, carry it through a snapshot when
/// `snapshot_first`, then answer `reply`: the result as JSON.
fn finish_after_wait(source: &str, name: &str, snapshot_first: bool, reply: HostValue) -> String {
    let mut rt = Runtime::new();
    rt.register_async("tools.wait");
    let calls = suspended(rt.start(source, name));
    assert_eq!(calls.len(), 1);
    if snapshot_first {
        let bytes = rt.snapshot(None).unwrap();
        drop(rt);
        let snapshot = Snapshot::open(&bytes, None).unwrap();
        rt = Runtime::restore(&snapshot, Options::default()).unwrap();
        rt.register_async("tools.wait");
    }
    match rt.resume(calls[0].id, Ok(reply)).unwrap() {
        Outcome::Complete(v) => serde_json::to_string(&v).unwrap(),
        other => panic!("expected a result, got {other:?}"),
    }
}

#[test]
fn restored_state_behaves_like_the_original() {
    let direct = stateful_result(false);
    assert_eq!(
        direct,
        r#"[1,2,"ada:42,alan:5",101,102,true,3,"a","secret",true,"kept","1,2,3,250",1018,42,200,"yzab","y","proxied anything",1,"b",true,"xyz","1208925819614629174706176","2026-11-22T00:00:00.000Z","symbol-keyed","function","accounts,map,big,date,set","done",true,true,"2026-03-29T01:30:00+01:00[Europe/Paris][u-ca=iso8601] PT1H1.5S 1972-02-29[u-ca=iso8601] 1969-12-31T23:59:59.999999999Z 2024-02-29[u-ca=hebrew] 12:34:56.789123456 2020-01-01T00:00:00[u-ca=japanese] 2020-02-15[u-ca=iso8601]","2026-03-29T03:30:00+02:00[Europe/Paris]",1500]"#
    );
    assert_eq!(stateful_result(true), direct);
}

/// `for-in` loops paused at a host call: one over an object whose prototypes have no
/// enumerable keys (only its own keys are listed), one whose prototype has some (keys
/// seen are recorded so that shadowed ones are skipped).
const FOR_IN: &str = r#"
(async () => {
    const plain = { a: 1, b: 2, c: 3 };
    const child = Object.create({ b: 0, inherited: 1 });
    child.a = 1;
    child.b = 2;
    const seen = [];
    for (const k in plain) {
        if (k === "b") await tools.wait();
        seen.push(k);
    }
    for (const k in child) {
        if (k === "b") await tools.wait();
        seen.push(k);
    }
    return seen.join();
})()
"#;

#[test]
fn for_in_loops_continue_after_a_snapshot() {
    for snapshot_first in [false, true] {
        let mut rt = Runtime::new();
        rt.register_async("tools.wait");
        let mut calls = suspended(rt.start(FOR_IN, "for-in.js"));
        if snapshot_first {
            rt = restore(&rt.snapshot(None).unwrap());
            rt.register_async("tools.wait");
        }
        let result = loop {
            match rt.resume(calls[0].id, Ok(HostValue::Null)).unwrap() {
                Outcome::Complete(v) => break serde_json::to_string(&v).unwrap(),
                Outcome::Suspended(next) => calls = next,
            }
            if snapshot_first {
                rt = restore(&rt.snapshot(None).unwrap());
                rt.register_async("tools.wait");
            }
        };
        assert_eq!(
            result, r#""a,b,c,a,b,inherited""#,
            "snapshot_first: {snapshot_first}"
        );
    }
}

/// A SharedArrayBuffer (growable, grown) and its views: the bytes are written, and the
/// restored buffer is still shared and growable.
const SHARED: &str = r#"
(async () => {
    const sab = new SharedArrayBuffer(8, { maxByteLength: 16 });
    const ints = new Int32Array(sab);
    Atomics.store(ints, 0, 7);
    sab.grow(12);
    new Int32Array(sab)[2] = 9;
    await tools.wait();
    sab.grow(16);
    Atomics.add(ints, 1, 5);
    return [sab.byteLength, sab.growable, sab.maxByteLength, ...new Int32Array(sab)].join();
})()
"#;

#[test]
fn a_shared_buffer_is_written_with_its_bytes() {
    let direct = finish_after_wait(SHARED, "shared.js", false, HostValue::Null);
    assert_eq!(direct, r#""16,true,16,7,5,9,0""#);
    assert_eq!(
        finish_after_wait(SHARED, "shared.js", true, HostValue::Null),
        direct
    );
}

/// Resources held across a host call: a `using` scope's resource list, a DisposableStack,
/// and an AsyncDisposableStack whose `disposeAsync` is waiting for the host.
const DISPOSING: &str = r#"
(async () => {
    const log = [];
    const stack = new DisposableStack();
    stack.defer(() => log.push('stack'));
    const asyncStack = new AsyncDisposableStack();
    asyncStack.adopt('adopted', async (v) => { log.push(v); });
    asyncStack.defer(async () => { log.push(await tools.wait()); });
    {
        using a = { [Symbol.dispose]() { log.push('a'); } };
        await using b = { async [Symbol.asyncDispose]() { log.push('b'); } };
        await using nothing = null;
        await asyncStack.disposeAsync();
    }
    stack.dispose();
    return log.join(' ');
})()
"#;

fn disposing_result(snapshot_first: bool) -> String {
    finish_after_wait(DISPOSING, "dispose.js", snapshot_first, "body".into())
}

#[test]
fn resources_survive_a_snapshot() {
    let direct = disposing_result(false);
    assert_eq!(direct, r#""body adopted b a stack""#);
    assert_eq!(disposing_result(true), direct);
}

#[test]
fn budgets_spent_before_the_snapshot_still_count() {
    let mut rt = Runtime::with_options(Options {
        limits: Limits {
            fuel: Some(2_000_000),
            ..Limits::default()
        },
        ..Options::default()
    })
    .unwrap();
    rt.register_async("tools.wait");
    let source = "let n = 0; for (let i = 0; i < 100000; i++) n += i; \
                  tools.wait().then(() => { for (;;) {} })";
    let calls = suspended(rt.start(source, "spin.js"));
    let used = rt.fuel_used();
    assert!(used > 100_000, "{used}");
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(
        &snapshot,
        Options {
            limits: Limits {
                fuel: Some(2_000_000),
                ..Limits::default()
            },
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(rt.fuel_used(), used);
    rt.register_async("tools.wait");
    let err = rt.resume(calls[0].id, Ok(HostValue::Null)).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OutOfFuel);
}

#[test]
fn capabilities_must_be_registered_again() {
    let mut rt = agent_runtime();
    let calls = suspended(rt.start(AGENT, "agent.js"));
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    rt.register_async("tools.users");
    let err = rt
        .resume(calls[0].id, Ok(answer("tools.users")))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Host);
    assert!(
        err.summary.contains("tools.orders, tools.rates"),
        "{}",
        err.summary
    );
}

#[test]
fn a_restored_sync_capability_is_the_hosts_new_closure() {
    let mut rt = Runtime::new();
    rt.register_sync("scale", |x: f64| x * 2.0);
    rt.register_async("tools.wait");
    let calls = suspended(rt.start("tools.wait().then(v => scale(v))", "s.js"));
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    rt.register_sync("scale", |x: f64| x * 10.0);
    rt.register_async("tools.wait");
    let done = rt.resume(calls[0].id, Ok(4.into())).unwrap();
    assert_eq!(done, Outcome::Complete(40.into()));
}

#[test]
fn host_errors_reach_the_restored_guest() {
    let mut rt = Runtime::new();
    rt.register_async("tools.fetch");
    let source = "tools.fetch('x').catch(e => `${e.name}/${e.message}/${e.code}`)";
    let calls = suspended(rt.start(source, "e.js"));
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    rt.register_async("tools.fetch");
    let error = HostError::new("gone")
        .with_name("NotFound")
        .with_code("E404");
    let done = rt.resume(calls[0].id, Err(error)).unwrap();
    assert_eq!(done, Outcome::Complete("NotFound/gone/E404".into()));
}

// ---- the envelope ----

#[test]
fn keyed_snapshots_verify_only_with_their_key() {
    let mut rt = agent_runtime();
    suspended(rt.start(AGENT, "agent.js"));
    let key = b"host secret";
    let bytes = rt.snapshot(Some(key)).unwrap();
    assert!(Snapshot::open(&bytes, Some(key)).is_ok());
    let kind = |r: Result<Snapshot, kiln::snapshot::SnapshotError>| r.err().map(|e| e.kind);
    assert_eq!(
        kind(Snapshot::open(&bytes, Some(b"other"))),
        Some(SnapshotErrorKind::Authentication)
    );
    assert_eq!(
        kind(Snapshot::open(&bytes, None)),
        Some(SnapshotErrorKind::Authentication)
    );
    let plain = rt.snapshot(None).unwrap();
    assert_eq!(
        kind(Snapshot::open(&plain, Some(key))),
        Some(SnapshotErrorKind::Authentication)
    );
    let mut tampered = bytes.clone();
    let middle = tampered.len() / 2;
    tampered[middle] ^= 1;
    assert_eq!(
        kind(Snapshot::open(&tampered, Some(key))),
        Some(SnapshotErrorKind::Authentication)
    );
}

#[test]
fn every_snapshot_has_its_own_id() {
    let mut rt = agent_runtime();
    suspended(rt.start(AGENT, "agent.js"));
    let a = rt.snapshot(None).unwrap();
    let b = rt.snapshot(None).unwrap();
    let (a, b) = (
        Snapshot::open(&a, None).unwrap().id().to_string(),
        Snapshot::open(&b, None).unwrap().id().to_string(),
    );
    assert_ne!(a, b);
    assert_eq!(a.len(), 32);
    assert!(
        a.bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
}

#[test]
fn truncated_and_damaged_bytes_are_refused() {
    let mut rt = Runtime::new();
    rt.register_async("tools.wait");
    suspended(rt.start("tools.wait().then(v => [v, 'x'.repeat(3)])", "t.js"));
    let bytes = rt.snapshot(None).unwrap();
    for len in 0..bytes.len() {
        assert!(Snapshot::open(&bytes[..len], None).is_err(), "length {len}");
    }
    for i in (0..bytes.len()).step_by(7) {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x5a;
        let kind = Snapshot::open(&damaged, None).err().map(|e| e.kind);
        assert!(
            matches!(
                kind,
                Some(SnapshotErrorKind::Corrupt | SnapshotErrorKind::Version)
            ),
            "byte {i}: {kind:?}"
        );
    }
    assert!(Snapshot::open(b"not a snapshot at all, clearly not one", None).is_err());
}

#[test]
fn what_cannot_be_carried_is_refused() {
    fn host_native(_: &mut kiln::Vm, _: kiln::Value, _: kiln::Args) -> kiln::JsResult<kiln::Value> {
        Ok(kiln::Value::UNDEFINED)
    }
    let mut rt = Runtime::new();
    rt.register_function("hostNative", host_native, 0);
    rt.register_async("tools.wait");
    suspended(rt.start("tools.wait()", "t.js"));
    let err = rt.snapshot(None).unwrap_err();
    assert_eq!(err.kind, SnapshotErrorKind::Unsupported);
    assert!(err.message.contains("register_function"), "{}", err.message);
}

// ---- across processes ----

/// The child half of `a_snapshot_resumes_in_another_process`: runs only when the parent
/// starts this test binary with the snapshot's path.
#[test]
fn resume_in_child_process() {
    let Ok(path) = std::env::var("KILN_SNAPSHOT_FILE") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let mut rt = restore(&bytes);
    let calls = rt.pending_calls();
    let v = answer_all(&mut rt, &calls);
    std::fs::write(format!("{path}.result"), serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn a_snapshot_resumes_in_another_process() {
    let mut rt = agent_runtime();
    suspended(rt.start(AGENT, "agent.js"));
    let dir = std::env::temp_dir().join(format!("kiln-snapshot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("agent.snapshot");
    std::fs::write(&path, rt.snapshot(None).unwrap()).unwrap();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "resume_in_child_process", "--test-threads", "1"])
        .env("KILN_SNAPSHOT_FILE", &path)
        .status()
        .unwrap();
    assert!(status.success());
    let result = std::fs::read_to_string(dir.join("agent.snapshot.result")).unwrap();
    assert_eq!(result, r#"[["ada",16],["alan",5],["unknown",3]]"#);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run `source` in `realm` of `rt` (the embedding API has no realms yet).
fn run_in_realm(rt: &mut Runtime, realm: kiln::realm::RealmId, source: &str) {
    let vm = rt.vm();
    let previous = vm.enter_realm(realm);
    let result = vm.run_script(source, "realm.js");
    vm.enter_realm(previous);
    assert!(result.is_ok(), "the script runs in realm {realm:?}");
}

#[test]
fn a_runtime_with_two_realms_restores_both() {
    let mut rt = Runtime::new();
    let realm = rt.vm().create_realm();
    run_in_realm(
        &mut rt,
        realm,
        "var counter = 40; let label = 'other'; function bump() { return ++counter; }
         var strictArgs = (function () { 'use strict'; return arguments; })();
         var re = /x/g;",
    );
    let other = rt.vm().realm_global(realm);
    let global = rt.vm().intrinsics.global;
    let key = rt.vm().key("other");
    rt.vm().define_builtin(
        global,
        key,
        kiln::Value::object(other),
        kiln::object::Attrs::HIDDEN,
    );
    rt.eval("var counter = 1; let label = 'main'; other.bump();")
        .unwrap();

    let bytes = rt.snapshot(None).unwrap();
    let mut rt = restore(&bytes);
    assert_eq!(rt.vm().realms.len(), 2);
    let checks = [
        // each realm's globals, lexicals and code
        ("other.bump() + ':' + counter", "42:1"),
        ("label + ':' + other.eval('label')", "main:other"),
        // each realm's intrinsics, and its natives run in it
        (
            "other.Array !== Array && other.eval('[]') instanceof other.Array",
            "true",
        ),
        (
            "try { other.Array.prototype.map.call([], 1) } catch (e) { e instanceof other.TypeError }",
            "true",
        ),
        (
            "Object.getPrototypeOf(other.Function('return 1')) === other.Function.prototype",
            "true",
        ),
        // the other realm's fresh functions and arguments objects have their shapes
        ("Object.keys(other.eval('(function f(a) {})')).length", "0"),
        (
            "try { other.strictArgs.callee } catch (e) { e instanceof other.TypeError }",
            "true",
        ),
        (
            "other.eval('(function () { return arguments; })(1, 2)').length",
            "2",
        ),
        // a regular expression remembers its realm
        (
            "try { RegExp.prototype.compile.call(other.re, 'y') } catch (e) { e instanceof TypeError }",
            "true",
        ),
        ("other.re.compile('y').source", "y"),
        // and new code in it after the restore
        ("other.eval('var late = counter; late')", "42"),
        ("Symbol.for('x') === other.Symbol.for('x')", "true"),
    ];
    for (source, expected) in checks {
        assert_eq!(rt.eval(source).unwrap(), expected, "{source}");
    }
}

#[test]
fn bytes_in_pending_calls_and_answers_survive_a_snapshot() {
    let mut rt = Runtime::new();
    rt.register_async("blob.digest");
    let script = "blob.digest(new Uint8Array([0, 127, 255]), { raw: new Uint8Array(0).buffer })
        .then(d => [d instanceof Uint8Array, ...d])";
    let calls = suspended(rt.start(script, "t.js"));
    let expected_args = vec![
        HostValue::Bytes(vec![0, 127, 255]),
        HostValue::object([("raw", HostValue::Bytes(vec![]))]),
    ];
    assert_eq!(calls[0].args, expected_args);
    let bytes = rt.snapshot(None).unwrap();
    drop(rt);
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, Options::default()).unwrap();
    rt.register_async("blob.digest");
    let restored = rt.pending_calls();
    assert_eq!(restored.len(), 1);
    assert_eq!(restored[0].args, expected_args);
    let done = rt
        .resume(restored[0].id, Ok(HostValue::Bytes(vec![42, 43])))
        .unwrap();
    assert_eq!(
        done,
        Outcome::Complete(HostValue::Array(vec![true.into(), 42.into(), 43.into()]))
    );
}

#[test]
fn the_host_call_budget_spent_before_a_snapshot_stays_spent() {
    let options = || Options {
        limits: Limits {
            max_host_calls: Some(2),
            ..Limits::default()
        },
        ..Options::default()
    };
    let mut rt = Runtime::with_options(options()).unwrap();
    rt.register_async("t");
    let calls = suspended(rt.start("t().then(() => t()).then(() => t())", "t.js"));
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = Snapshot::open(&bytes, None).unwrap();
    let mut rt = Runtime::restore(&snapshot, options()).unwrap();
    rt.register_async("t");
    let second = suspended(rt.resume(calls[0].id, Ok(HostValue::Null)));
    let e = rt.resume(second[0].id, Ok(HostValue::Null)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::HostCalls);
}

#[test]
fn an_agent_script_suspended_at_a_top_level_await_restores() {
    let script = "const users = await tools.users({ active: true });
                  let names = [];
                  for (const u of users) names.push(u.name);
                  const rates = await tools.rates();
                  return { names, eur: rates.EUR };";
    let mut rt = agent_runtime();
    let first = suspended(rt.start(script, "agent.js"));
    let restored_bytes = rt.snapshot(None).unwrap();
    drop(rt);
    let mut rt = restore(&restored_bytes);
    let second = suspended(rt.resume(first[0].id, Ok(answer("tools.users"))));
    assert_eq!(second[0].capability, "tools.rates");
    let bytes = rt.snapshot(None).unwrap();
    drop(rt);
    let mut rt = restore(&bytes);
    let done = rt.resume(second[0].id, Ok(answer("tools.rates"))).unwrap();
    assert_eq!(
        done,
        Outcome::Complete(HostValue::object([
            ("names", HostValue::from(vec!["ada", "alan"])),
            ("eur", HostValue::Number(1.5)),
        ]))
    );
}
