//! TypeScript through the embedding API: sources named `*.ts` (`*.mts`, `*.cts`) run with
//! their types stripped, keep their own lines and columns, and refuse what needs a
//! transform with a located SyntaxError.

use std::collections::HashMap;

use kiln::snapshot::Snapshot;
use kiln::{ErrorKind, ErrorReport, HostValue, ModuleLoader, Options, Outcome, Runtime};

fn complete(outcome: Result<Outcome, ErrorReport>) -> HostValue {
    match outcome {
        Ok(Outcome::Complete(value)) => value,
        other => panic!("expected a result, got {other:?}"),
    }
}

/// A typed agent script: interfaces, generics, `as`, `!`, optional parameters, an abstract
/// class with modifiers, overloads, `satisfies`, a host call.
const TYPED_AGENT: &str = r#"
interface Hit { title: string; score: number; tags?: string[] }
type Ranked<T> = { item: T; rank: number };
declare const tools: { search(q: string): Promise<unknown> };

abstract class Scorer<T> {
    protected readonly threshold: number = 0.5;
    declare debugName: string;
    abstract score(item: T): number;
    public keep(item: T): boolean { return this.score(item) >= this.threshold; }
}
class HitScorer extends Scorer<Hit> implements Iterable<number> {
    private static created = 0;
    constructor(private_weight?: number) { super(); HitScorer.created++; this.weight = private_weight ?? 1; }
    weight!: number;
    override score(hit: Hit): number { return hit.score * this.weight; }
    *[Symbol.iterator](): Iterator<number> { yield HitScorer.created; }
}

function rank<T>(items: T[], by: (t: T) => number): Ranked<T>[];
function rank<T>(items: T[]): Ranked<T>[];
function rank<T>(items: T[], by?: (t: T) => number): Ranked<T>[] {
    const key = by ?? ((_: T) => 0);
    return [...items].sort((a, b) => key(b) - key(a)).map((item, i) => ({ item, rank: i + 1 }));
}

const hits = (await tools.search("kiln")) as Hit[];
const scorer = new HitScorer(2);
const kept = hits.filter(h => scorer.keep(h));
const ranked = rank<Hit>(kept, h => scorer.score(h));
const summary = {
    titles: ranked.map(r => `${r.rank}:${r.item.title}`),
    firstTag: ranked[0]!.item.tags?.[0]!,
    created: [...scorer][0],
    fields: Object.keys(scorer),
} satisfies Record<string, unknown>;
return JSON.stringify(summary);
"#;

#[test]
fn a_typed_agent_script_runs_with_its_types_stripped() {
    let mut rt = Runtime::new();
    rt.register_async("tools.search");
    let Ok(Outcome::Suspended(calls)) = rt.start(TYPED_AGENT, "agent.ts") else {
        panic!("expected the search call");
    };
    let hits = serde_json::from_str::<HostValue>(
        r#"[{"title": "low", "score": 0.1},
            {"title": "kiln", "score": 0.9, "tags": ["engine"]},
            {"title": "oxc", "score": 0.4}]"#,
    )
    .unwrap();
    let result = complete(rt.resume(calls[0].id, Ok(hits)));
    assert_eq!(
        result,
        HostValue::String(
            r#"{"titles":["1:kiln","2:oxc"],"firstTag":"engine","created":1,"fields":["threshold","weight"]}"#
                .into()
        )
    );
}

/// Where an exception is reported: the TypeScript program and the same program with its
/// types blanked out (spaces instead, so every column stays) agree.
#[test]
fn errors_report_the_original_line_and_column() {
    let typescript = "interface Order { id: number; items?: string[] }\n\
                      function count(o: Order): number {\n\
                      \x20 return <number>o.items!.length;\n\
                      }\n\
                      count({ id: 1 } as Order);";
    let javascript = "                                                \n\
                      function count(o       )         {\n\
                      \x20 return         o.items .length;\n\
                      }\n\
                      count({ id: 1 }         );";
    let report = |source: &str, name: &str| {
        let e = Runtime::new().run_script(source, name).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Exception);
        let loc = e.location.expect("a location");
        (loc.line, loc.column, e.stack.replace(name, "FILE"))
    };
    let (line, column, stack) = report(typescript, "order.ts");
    assert_eq!((line, column), (3, 27));
    assert_eq!((line, column, stack), report(javascript, "order.js"));
    // the same in an agent script, after an await
    let mut rt = Runtime::new();
    let e = rt
        .start(
            "let o: { a?: { b: number } } = {};\nawait 0;\n  o.a!.b;",
            "x.ts",
        )
        .unwrap_err();
    let loc = e.location.expect("a location");
    assert_eq!((loc.line, loc.column), (3, 8));
}

#[test]
fn non_erasable_typescript_is_a_located_syntax_error() {
    let mut rt = Runtime::new();
    let e = rt
        .run_script("const a = 1;\n  enum Color { Red, Green }", "colors.ts")
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert_eq!(
        e.message,
        "TypeScript enum is not supported: Kiln strips types but does not transform \
         TypeScript (use a union of literals or an object) (colors.ts:2:3)"
    );
    let e = rt
        .start(
            "class P {\n  constructor(private x: number) {}\n}",
            "agent.ts",
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert!(
        e.message
            .starts_with("TypeScript parameter property is not supported"),
        "{}",
        e.message
    );
    assert!(e.message.ends_with("(agent.ts:2:15)"), "{}", e.message);
    // A JavaScript source with TypeScript in it is a plain syntax error.
    let e = rt.run_script("let a: number = 1;", "a.js").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
}

#[test]
fn scripts_declare_only_their_values_and_eval_code_is_javascript() {
    let mut rt = Runtime::new();
    let value = rt
        .run_script(
            "interface Window { x: number }\n\
             type Id = string;\n\
             declare var host: unknown;\n\
             declare function external(): void;\n\
             var counted: number = 2;\n\
             function twice(n: number): number { return n * 2 }\n\
             [typeof Window, typeof Id, 'host' in globalThis, typeof external, twice(counted)].join()",
            "globals.ts",
        )
        .unwrap();
    assert_eq!(rt.inspect(value), "undefined,undefined,false,undefined,4");
    let value = rt
        .run_script(
            "let v: number = 20;\n\
             let r: string;\n\
             try { eval('let w: number = 1'); } catch (e) { r = (e as Error).name; }\n\
             `${eval('v + 1')} ${r!}`",
            "eval.ts",
        )
        .unwrap();
    assert_eq!(rt.inspect(value), "21 SyntaxError");
}

/// Modules by name from a table.
struct Files(HashMap<&'static str, &'static str>);

impl ModuleLoader for Files {
    fn resolve(&mut self, specifier: &str, _referrer: &str) -> Result<String, String> {
        let key = specifier.trim_start_matches("./");
        match self.0.contains_key(key) {
            true => Ok(key.to_string()),
            false => Err(format!("no module {key}")),
        }
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        self.0
            .get(key)
            .map(|s| s.to_string())
            .ok_or_else(|| format!("no module {key}"))
    }
}

#[test]
fn modules_import_types_without_loading_them() {
    let mut rt = Runtime::new();
    rt.set_module_loader(Box::new(Files(HashMap::from([
        (
            "main.mts",
            "import type { Shape } from './shapes.ts';\n\
             import { area, type Unit, Square } from './shapes.ts';\n\
             import { Options } from './options.ts';\n\
             const unit: Unit = 'cm';\n\
             const opts: Options = { precise: true };\n\
             const s: Shape = new Square(3);\n\
             globalThis.result = `${area(s)}${unit} ${opts.precise} ${(globalThis as any).loaded}`;",
        ),
        (
            "shapes.ts",
            "export interface Shape { side: number }\n\
             export type Unit = 'cm' | 'in';\n\
             export class Square implements Shape { constructor(side: number) { this.side = side; } side: number; }\n\
             export function area(s: Shape): number { return s.side ** 2; }",
        ),
        // only types are imported from it: TypeScript drops the import, nothing loads it
        (
            "options.ts",
            "(globalThis as any).loaded = true;\nexport interface Options { precise: boolean }",
        ),
    ]))));
    rt.run_module("main.mts", "").expect("the module runs");
    let result = rt.run_script("result", "<check>").unwrap();
    assert_eq!(rt.inspect(result), "9cm true undefined");
}

/// Restoring a snapshot compiles the scripts again from source under the same name: a
/// TypeScript agent continues as TypeScript.
#[test]
fn a_typescript_agent_continues_after_a_snapshot() {
    let mut rt = Runtime::new();
    rt.register_async("tools.price");
    let source = "interface Quote { amount: number }\n\
                  const quote = (await tools.price('kiln')) as Quote;\n\
                  const total = (n: number): number => n * 2;\n\
                  return total(quote.amount!);";
    let Ok(Outcome::Suspended(calls)) = rt.start(source, "pricing.ts") else {
        panic!("expected the price call");
    };
    let bytes = rt.snapshot(None).expect("a snapshot");
    let snapshot = Snapshot::open(&bytes, None).expect("the snapshot opens");
    let mut restored = Runtime::restore(&snapshot, Options::default()).expect("it restores");
    restored.register_async("tools.price");
    let quote = HostValue::object([("amount", HostValue::Number(21.0))]);
    assert_eq!(
        complete(restored.resume(calls[0].id, Ok(quote))),
        HostValue::Number(42.0)
    );
}
