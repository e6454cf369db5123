//! TypeScript sources: what is stripped compiles to what the JavaScript would, what needs a
//! transform is a SyntaxError at the construct, and no input makes the compiler fail
//! inside. Programs that run are in `crates/kiln/tests/typescript.rs`.

use kiln_bytecode::{Script, ScriptKind};

use crate::{CompileError, compile};

fn ts(source: &str, kind: ScriptKind) -> Result<Script, CompileError> {
    let name = match kind {
        ScriptKind::Module => "test.mts",
        _ => "test.ts",
    };
    compile(source, name, kind, false)
}

/// The bytecode listing of every function, without the source positions that differ
/// between a TypeScript program and its JavaScript.
fn code(script: &Script) -> Vec<String> {
    script
        .functions
        .iter()
        .map(|f| format!("{:?} {:?} {:?}", f.instructions, f.constants, f.name))
        .collect()
}

/// `typescript` compiles to the same code as `javascript`, its types stripped by hand.
fn same_code(typescript: &str, javascript: &str, kind: ScriptKind) {
    let stripped = ts(typescript, kind).unwrap_or_else(|e| panic!("{typescript:?}: {e}"));
    let plain = compile(javascript, "test.js", kind, false)
        .unwrap_or_else(|e| panic!("{javascript:?}: {e}"));
    assert_eq!(code(&stripped), code(&plain), "{typescript:?}");
}

#[test]
fn types_are_stripped() {
    let script = ScriptKind::Script;
    same_code(
        "let x: number = 1; const f = (a: string, b?: number): void => {};",
        "let x = 1; const f = (a, b) => {};",
        script,
    );
    same_code(
        "interface P { x: number } type Q = P | null; declare const host: any; declare function g(): void; let y = 2;",
        "let y = 2;",
        script,
    );
    same_code(
        "function f(a: string): string; function f(a: number): number; function f(a: any) { return a; }",
        "function f(a) { return a; }",
        script,
    );
    same_code(
        "function id<T>(this: unknown, v: T): T { return v!; } id<number>(1 as number) satisfies number;",
        "function id(v) { return v; } id(1);",
        script,
    );
    same_code(
        "abstract class A<T> implements B { abstract m(): void; abstract x: T; declare y: T; [k: string]: any; \
         private z?: T; public readonly w = 1; override n(): void; n() {} constructor(); constructor() {} }",
        "class A { z; w = 1; n() {} constructor() {} }",
        script,
    );
    same_code(
        "namespace Types { export type T = number; export interface I {} } declare namespace N { const v: 1 } \
         declare global { interface Window {} } declare module 'm' {} declare enum E { A }",
        "",
        script,
    );
    same_code(
        "let n: number; n! = 1; (n as any) += 2; (<any>n)++; [(n as number)] = [3]; ({ n: n! } = { n: 4 });",
        "let n; n = 1; n += 2; n++; [n] = [3]; ({ n: n } = { n: 4 });",
        script,
    );
    same_code(
        "const o: any = {}; o.a!.b = 1; (o.c as any).d = 2; (o.m as Function)(); o.m!();",
        "const o = {}; o.a.b = 1; o.c.d = 2; o.m(); o.m();",
        script,
    );
    same_code(
        "const f = (() => 1) as () => number; const g = (function () {}) satisfies object;",
        "const f = () => 1; const g = function () {};",
        script,
    );
    same_code("a?.b!.c; a?.b!();", "a?.b.c; a?.b();", script);
}

#[test]
fn type_only_imports_and_exports_are_dropped() {
    let module = |source: &str| {
        ts(source, ScriptKind::Module)
            .unwrap_or_else(|e| panic!("{source:?}: {e}"))
            .module
            .expect("module info")
    };
    let info = module(
        "import type { A } from './types'; import { type B, c } from './values'; \
         import { D } from './interfaces'; import { E } from './typeof'; import './effects'; \
         let d: D; let e: typeof E; export type { A }; export { type B }; export type F = 1; \
         export interface G {} export { F }; export default G; export declare const h: 1; \
         export type * from './more'; export { type I } from './more'; export { c };",
    );
    let requests: Vec<&str> = info.requests.iter().map(|r| r.specifier.as_str()).collect();
    assert_eq!(requests, ["./values", "./effects"]);
    let imports: Vec<&str> = info
        .imports
        .iter()
        .map(|i| i.import_name.as_str())
        .collect();
    assert_eq!(imports, ["c"]);
    let exports: Vec<&str> = info
        .local_exports
        .iter()
        .map(|e| e.0.as_str())
        .chain(info.indirect_exports.iter().map(|e| e.export_name.as_str()))
        .collect();
    assert_eq!(exports, ["c"]);
    // An import used as a value stays, also when a type uses it too.
    let info = module("import { v } from './v'; let t: typeof v = v;");
    assert_eq!(info.imports.len(), 1);
    // Direct eval may name any import: none is dropped.
    let info = module("import { v } from './v'; eval('v');");
    assert_eq!(info.imports.len(), 1);
}

#[test]
fn scripts_and_agent_scripts_may_import_types_only() {
    for kind in [ScriptKind::Script, ScriptKind::Agent] {
        assert!(
            ts(
                "import type { T } from './t'; export type { T }; let x: T;",
                kind
            )
            .is_ok()
        );
        for source in [
            "t;\nimport { t } from './t';",
            "let a = 1;\nexport { a };",
            "let a = 1;\nexport default abstract class {}",
        ] {
            let e = ts(source, kind).unwrap_err();
            assert_eq!(
                (e.message.as_str(), e.line),
                (
                    "import and export declarations are only allowed in modules",
                    2
                ),
                "{source:?} as {kind:?}"
            );
        }
    }
}

/// Every construct that needs a transform, where it starts, and the start of its message.
#[test]
fn non_erasable_typescript_is_a_syntax_error_at_the_construct() {
    let cases: &[(&str, ScriptKind, (u32, u32), &str)] = &[
        (
            "let a = 1;\n  enum Color { Red }",
            ScriptKind::Script,
            (2, 3),
            "TypeScript enum is not supported: Kiln strips types but does not transform \
             TypeScript (use a union of literals or an object)",
        ),
        (
            "export const enum E { A }",
            ScriptKind::Module,
            (1, 8),
            "TypeScript const enum is not supported",
        ),
        (
            "class P {\n  constructor(public x: number) {}\n}",
            ScriptKind::Script,
            (2, 15),
            "TypeScript parameter property is not supported",
        ),
        (
            "namespace N {\n  export const x = 1;\n}",
            ScriptKind::Script,
            (1, 1),
            "TypeScript namespace with runtime code is not supported",
        ),
        (
            "const a = 1;\nexport namespace A.B { export function f() {} }",
            ScriptKind::Module,
            (2, 8),
            "TypeScript namespace with runtime code is not supported",
        ),
        (
            "import fs = require('fs');",
            ScriptKind::Module,
            (1, 1),
            "TypeScript `import = require()` is not supported",
        ),
        (
            "declare namespace A { const b: 1 }\nimport B = A.b;",
            ScriptKind::Module,
            (2, 1),
            "TypeScript import alias (`import x = A.B`) is not supported",
        ),
        (
            "const x = 1;\nexport = x;",
            ScriptKind::Module,
            (2, 1),
            "TypeScript `export =` is not supported",
        ),
        (
            "class C {\n  @log m() {}\n}",
            ScriptKind::Agent,
            (2, 3),
            "decorators are not supported",
        ),
        (
            "function f() { return () => { enum E { A } }; }",
            ScriptKind::Agent,
            (1, 31),
            "TypeScript enum is not supported",
        ),
    ];
    for &(source, kind, (line, column), message) in cases {
        let e = ts(source, kind).expect_err(source);
        assert_eq!((e.line, e.column), (line, column), "{source:?}: {e}");
        assert!(e.message.starts_with(message), "{source:?}: {e}");
    }
}

#[test]
fn declarations_typescript_merges_but_javascript_refuses_are_errors() {
    let e = ts("import { a } from './a';\nconst a = 1;", ScriptKind::Module).unwrap_err();
    assert_eq!(
        (e.message.as_str(), e.line, e.column),
        ("Identifier `a` has already been declared", 2, 7)
    );
    let e = ts("class C {}\nfunction C() {}", ScriptKind::Script).unwrap_err();
    assert_eq!((e.line, e.column), (2, 10), "{e}");
    // merging with declarations for the type checker is fine
    assert!(
        ts(
            "import { a } from './a'; interface a {} a;",
            ScriptKind::Module
        )
        .is_ok()
    );
    assert!(
        ts(
            "class C {} interface C { x: 1 } declare function C(): void;",
            ScriptKind::Script
        )
        .is_ok()
    );
}

#[test]
fn tsx_is_refused_and_eval_code_stays_javascript() {
    let e = compile("let a = 1;", "view.tsx", ScriptKind::Script, false).unwrap_err();
    assert!(e.message.starts_with("TSX is not supported"), "{e}");
    for name in ["a.ts", "a.mts", "a.cts", "dir.v2/a.d.ts"] {
        assert!(
            compile("let a: number = 1;", name, ScriptKind::Script, false).is_ok(),
            "{name}"
        );
    }
    assert!(compile("let a: number = 1;", "a.js", ScriptKind::Script, false).is_err());
    assert!(compile("let a: number = 1;", "a.ts", ScriptKind::Eval, false).is_err());
}

/// Odd TypeScript, valid and not, in every kind of source: each compiles or is a
/// SyntaxError, never an internal error.
#[test]
fn odd_typescript_never_breaks_the_compiler() {
    let snippets = [
        "let x: unique symbol;",
        "declare const s: unique symbol; s;",
        "type T<in out U> = U; let v = 1 as T<number>;",
        "let a = <const>['x'];",
        "let f = <T,>(x: T) => x; f<string>;",
        "class A { static { let x: number = 1; } }",
        "class A<T extends object = {}> extends (Object as any)<T> {}",
        "class A { declare readonly x: number; declare static y: string; }",
        "class A { abstract m(): void; }",
        "abstract class A { abstract get g(): number; abstract set s(v: number); }",
        "class A { m?(): void; n?() {} }",
        "class A { [k: string]: number; static [k: number]: string; }",
        "class A { constructor(this: A) {} }",
        "class A { #p!: number; q!: string; }",
        "class A { accessor x = 1; }",
        "function f(this: void) {} f();",
        "function f(): asserts this is string {}",
        "function f(x?: number, ...rest: string[]): x is number { return true; }",
        "declare function f(): void; f();",
        "declare class C { m(): void } new C();",
        "declare var v; v = 1;",
        "declare let l: number; l++;",
        "declare module 'x' { export default function (): void; }",
        "declare global { var g: number } g;",
        "namespace N {} namespace M { } namespace O.P.Q { export type T = 1 }",
        "namespace N { ; }",
        "namespace N { declare const x: 1; export declare function f(): void }",
        "module 'm' {}",
        "enum E {} ",
        "declare const enum E { A }",
        "export {};",
        "export type {};",
        "export as namespace Lib;",
        "import type X = require('x');",
        "import type { default as D } from './d'; let d: D;",
        "import D, * as NS from './d'; let d: D; let n: typeof NS;",
        "export import A = B.C;",
        "export default interface I {}",
        "export default abstract class {}",
        "export default function f(): void; export default function f() {}",
        "export declare namespace N { const x: 1 }",
        "export { x as default }; declare const x: number;",
        "type A = typeof import('./x');",
        "let x = y!!!;",
        "let x = (y as any as unknown satisfies unknown)!;",
        "(a as any) = 1;",
        "(a!) = 1;",
        "(<any>a) = 1;",
        "(a satisfies any) = 1;",
        "(a as any)++;",
        "for ((a as any) of []) {}",
        "for (a! in {}) {}",
        "[(a as any), (b!)] = [];",
        "({ a: (b as any) = 1, ...(c as any) } = {});",
        "((a as any) as any) = 1;",
        "(a.b as any)`t`;",
        "new (A as any)<number>();",
        "new A<number>;",
        "a<b>(c);",
        "a < b > c;",
        "f<T>`x`;",
        "delete (a as any).b; delete a!.b; delete (a.b as any);",
        "typeof (a!); void (a as any);",
        "let v = (function () {}) as any; let w = class {} satisfies object;",
        "const o = { m<T>(x: T): T { return x; }, get g(): number { return 1; } };",
        "try {} catch (e: unknown) {}",
        "try {} catch ({ message }: any) {}",
        "for (let i: number = 0; i < 1; i++) {}",
        "for (const [k, v] of new Map<string, number>()) {}",
        "let { a, ...r }: { a: number; [k: string]: number } = {} as any;",
        "function f({ a }: { a: number } = { a: 1 }, [b]: [number] = [2]) {}",
        "async function* g<T>(): AsyncGenerator<T> { yield* ([] as T[]); }",
        "label: interface I {}",
        "if (x) type T = 1;",
        "while (false) declare const q: 1;",
        "let x: Array<Array<Array<number>>> = [];",
        "let x: { [K in keyof T as `get${K & string}`]?: () => T[K] };",
        "type C<T> = T extends infer U extends string ? U : never;",
        "function f<const T>() {}",
        "let x = a?.b!?.c!;",
        "let x = a!?.[0]!?.();",
        "super.x<number>();",
        "class A extends B { m() { return super.m!(); } }",
        "using x: Disposable = null as any;",
        "interface I extends J, K<L> { (x: number): string; new (): I; readonly [k: string]: any; m?(): void }",
        "let x: (this: Window, ...a: number[]) => void;",
        "abstract class A { private constructor(); }",
        "class A { constructor(readonly x) {} }",
        "class A { constructor(override x) {} }",
        "class A { m(@d x) {} }",
        "@d export class A {}",
        "function f(this) {}",
        "let x = <div>a</div>;",
        "enum",
        "interface",
        "type",
        "namespace",
        "declare",
        "abstract class",
        "let x: = 1;",
        "x as;",
        "x!!;",
        "function f<>() {}",
    ];
    for source in snippets {
        for kind in [ScriptKind::Script, ScriptKind::Module, ScriptKind::Agent] {
            if let Err(e) = ts(source, kind) {
                assert!(
                    !e.message.contains("internal"),
                    "{source:?} as {kind:?}: {e}"
                );
            }
        }
    }
}

#[test]
fn deep_type_arguments_are_an_error_not_a_crash() {
    let deep = format!("let x: {}B{};", "A<".repeat(200_000), ">".repeat(200_000));
    let e = ts(&deep, ScriptKind::Script).unwrap_err();
    assert_eq!(e.message, "nesting too deep");
    // as deep as brackets may go is fine, and so are many comparisons in many statements
    let nested = format!("let x: {}B{};", "A<".repeat(900), ">".repeat(900));
    assert!(ts(&nested, ScriptKind::Script).is_ok());
    let comparisons = "if (a < b) c = d << 1 <= e;\n".repeat(2000);
    assert!(ts(&comparisons, ScriptKind::Script).is_ok());
    let closed = "m = new Map<string, Array<number>>() as Map<string, number[]>;\n".repeat(2000);
    assert!(ts(&closed, ScriptKind::Script).is_ok());
}

/// After type arguments a `/` divides (`a<b> / (x)`); after a comparison's `>` it starts a
/// regular expression. Read only as the second, a million `a<b>/(/ /,` hid their `(` in
/// what looked like a regular expression literal `/(/`, and overflowed the compiler
/// thread's stack; the pre-scan now follows both readings.
#[test]
fn a_slash_after_type_arguments_is_read_both_ways() {
    let n = 1_000_000;
    let hidden = format!("let x = {}1{};", "a<b>/(/ /,".repeat(n), ")".repeat(n));
    assert_eq!(
        ts(&hidden, ScriptKind::Script).unwrap_err().message,
        "nesting too deep"
    );
    let divisions = "x = f<number> / (2) / 3; y = a > /[(]/.source.length;\n".repeat(3000);
    if let Err(e) = ts(&divisions, ScriptKind::Script) {
        panic!("{e}");
    }
}
