//! The dispatch loop: one `match` over [`Instr`], with the running frame's
//! code, `pc` and register base in locals. Fast paths (int32 arithmetic,
//! inline-cache hits, dense elements) are inline; everything else calls an
//! outlined generic path that may run JavaScript.

use super::generator::{GeneratorStatus, ResumeMode, SuspendKind};
use super::operators::BinaryOp;
use super::{Exit, InlineCache, MEGAMORPHIC_MISSES, PolymorphicEntries, ReturnTo, Vm};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::object::{Attrs, Elements, ObjectKind, Property, PropertyKey};
use crate::value::Value;
use kiln_bytecode::{Completion, ErrorKind, FunctionKind, Instr};

/// What the loop does after an instruction that changes frames.
enum Flow {
    /// re-read the top frame and continue
    Continue,
    /// leave the loop with this exit
    Exit(Exit),
}

impl Vm {
    pub(crate) fn run_after_push(&mut self) -> JsResult<Exit> {
        self.run()
    }

    /// Execute frames until the frame this loop was entered for returns, yields or awaits.
    pub(crate) fn run(&mut self) -> JsResult<Exit> {
        'frames: loop {
            let frame = self.frames.last().expect("a running frame");
            // SAFETY: the running frame's `Rc` keeps its code alive while this iteration
            // runs it. Only instructions that change frames pop or move that frame, and each
            // leaves the iteration (`continue 'frames` or a return) without reading `code`
            // again; a moved frame (a generator's) takes the `Rc` along, and the block
            // itself never moves.
            let code: &super::CodeBlock = unsafe { &*std::rc::Rc::as_ptr(&frame.code) };
            debug_assert_eq!(code.realm, self.realm, "code runs in its own realm");
            let base = frame.base as usize;
            let mut pc = frame.pc as usize;
            let instructions = &code.code.instructions[..];
            // Registers and instructions are read below without bounds checks. That rests
            // on the code having passed validation (a `CodeBlock` is made only from a
            // `ValidScript`): every register an instruction names, with those it uses
            // after them, is below the register count; every jump, switch and handler
            // target is an instruction; the last instruction does not fall through. So
            // `pc` stays in range from any in-range start, and the registers are in range
            // while the frame's registers exist, which this checks for the frame as it is
            // entered. Only instructions that change frames (calls, returns, throws,
            // yields, awaits) shrink the stack below the running frame's registers, and
            // each of them leaves through `continue 'frames` to come back here; anything
            // else that pushes onto the stack truncates it back to where it began.
            assert!(
                pc < instructions.len()
                    && base + code.register_count.max(1) as usize <= self.stack.len(),
                "a frame is entered outside its code or registers"
            );

            // The running frame's registers, as a pointer into the value stack. The stack's
            // storage moves when something pushes past its capacity, which running
            // JavaScript or a built-in may do: `tri!`, the way to every such path, and the
            // few other calls that can run JavaScript take the pointer again after them.
            // SAFETY: `base` is within the stack (checked above).
            let mut regs = unsafe { self.stack.as_mut_ptr().add(base) };
            macro_rules! refresh {
                () => {
                    // SAFETY: as above: the running frame's registers are still there.
                    regs = unsafe { self.stack.as_mut_ptr().add(base) }
                };
            }
            macro_rules! reg {
                ($r:expr) => {
                    // SAFETY: `regs` points at the running frame's registers, which exist
                    // (see above), as they lie now (it is taken again after every call
                    // that may move the stack), and `$r` is one of them.
                    *unsafe {
                        debug_assert!(std::ptr::eq(regs, self.stack.as_ptr().add(base)));
                        &mut *regs.add($r as usize)
                    }
                };
            }
            macro_rules! sync {
                () => {
                    self.frames.last_mut().expect("frame").pc = pc as u32
                };
            }
            // Evaluate a fallible path whose throw unwinds from the position the running
            // frame has recorded, resuming at a handler.
            macro_rules! or_unwind {
                ($e:expr) => {{
                    match $e {
                        Ok(v) => v,
                        Err(_) => match self.unwind_exception() {
                            Ok(Flow::Continue) => continue 'frames,
                            Ok(Flow::Exit(e)) => return Ok(e),
                            Err(t) => return Err(t),
                        },
                    }
                }};
            }
            // Evaluate a fallible generic path; on a throw, unwind and resume at a handler.
            macro_rules! tri {
                ($e:expr) => {{
                    sync!();
                    let v = or_unwind!($e);
                    refresh!();
                    v
                }};
            }
            // Return from the running frame. Its position is not recorded first: the frame
            // is popped, and a pop that reads back a just-stored pc stalls on the store.
            macro_rules! leave {
                ($e:expr) => {{
                    match or_unwind!($e) {
                        Flow::Continue => continue 'frames,
                        Flow::Exit(e) => return Ok(e),
                    }
                }};
            }
            macro_rules! flow {
                ($e:expr) => {{
                    match tri!($e) {
                        Flow::Continue => continue 'frames,
                        Flow::Exit(e) => return Ok(e),
                    }
                }};
            }
            macro_rules! jump {
                ($off:expr) => {
                    pc = (pc as i64 + $off as i64) as usize
                };
            }
            macro_rules! int_or_slow {
                ($dst:expr, $lhs:expr, $rhs:expr, $int:expr, $float:expr, $op:expr) => {{
                    let (a, b) = (reg!($lhs), reg!($rhs));
                    let r = if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
                        $int(x, y)
                    } else if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
                        Value::number($float(x, y))
                    } else {
                        tri!(self.binary_slow($op, a, b))
                    };
                    reg!($dst) = r;
                }};
            }
            macro_rules! compare {
                ($dst:expr, $lhs:expr, $rhs:expr, $op:tt, $swap:expr, $negate_undefined:expr) => {{
                    let (a, b) = (reg!($lhs), reg!($rhs));
                    let r = if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
                        x $op y
                    } else if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
                        x $op y
                    } else {
                        let r = if $swap { tri!(self.less_than(b, a, false)) } else { tri!(self.less_than(a, b, true)) };
                        match r {
                            None => false,
                            Some(v) => v != $negate_undefined,
                        }
                    };
                    reg!($dst) = Value::bool(r);
                }};
            }

            loop {
                // SAFETY: `pc` is an instruction of the running code (see above).
                let instr = *unsafe { instructions.get_unchecked(pc) };
                pc += 1;
                match instr {
                    Instr::Mov { dst, src } => reg!(dst) = reg!(src),
                    Instr::LoadConst { dst, idx } => reg!(dst) = code.constants[idx as usize],
                    Instr::LoadInt { dst, value } => reg!(dst) = Value::int(value),
                    Instr::LoadUndefined { dst } => reg!(dst) = Value::UNDEFINED,
                    Instr::LoadNull { dst } => reg!(dst) = Value::NULL,
                    Instr::LoadTrue { dst } => reg!(dst) = Value::TRUE,
                    Instr::LoadFalse { dst } => reg!(dst) = Value::FALSE,
                    Instr::LoadHole { dst } => reg!(dst) = Value::HOLE,
                    Instr::LoadThis { dst } => {
                        let this = reg!(0);
                        reg!(dst) = if this.is_object() || code.strict && !this.is_hole() {
                            this
                        } else {
                            // OrdinaryCallBindThis boxes a primitive `this` once per call:
                            // keep the wrapper so every `this` of the call is that object.
                            let coerced = tri!(self.coerce_this(this, code.strict));
                            reg!(0) = coerced;
                            coerced
                        };
                    }
                    Instr::LoadNewTarget { dst } => {
                        reg!(dst) = self.frames.last().expect("frame").new_target
                    }
                    Instr::LoadCallee { dst } => {
                        reg!(dst) = Value::object(self.frames.last().expect("frame").callee)
                    }
                    Instr::LoadGlobalObject { dst } => {
                        reg!(dst) = Value::object(self.intrinsics.global)
                    }
                    Instr::LoadImportMeta { dst } => reg!(dst) = tri!(self.import_meta()),
                    Instr::GetImport { dst, index } => reg!(dst) = tri!(self.get_import(index)),

                    // ---- environments ----
                    Instr::PushEnv { size } => {
                        let frame = self.frames.last_mut().expect("frame");
                        let parent = frame.env;
                        let env = self.heap.alloc_env(parent, size as usize);
                        let frame = self.frames.last_mut().expect("frame");
                        frame.env = Some(env);
                        frame.env_depth += 1;
                    }
                    Instr::PopEnv => {
                        let frame = self.frames.last_mut().expect("frame");
                        if let Some(e) = frame.env {
                            frame.env = self.heap.env(e).parent;
                            frame.env_depth -= 1;
                        }
                    }
                    Instr::CloneEnv => {
                        if let Some(e) = self.frames.last().expect("frame").env {
                            let copy = self.heap.clone_env(e);
                            self.frames.last_mut().expect("frame").env = Some(copy);
                        }
                    }
                    Instr::GetEnv { dst, depth, slot } => {
                        let env = self.env_at(depth);
                        reg!(dst) = self.heap.env(env).slots[slot as usize];
                    }
                    Instr::GetEnvChecked {
                        dst,
                        depth,
                        slot,
                        name,
                    } => {
                        let env = self.env_at(depth);
                        let v = self.heap.env(env).slots[slot as usize];
                        if v.is_hole() {
                            tri!(Err::<(), _>(
                                self.uninitialized(code.constants[name as usize])
                            ));
                        }
                        reg!(dst) = v;
                    }
                    Instr::SetEnv { src, depth, slot } => {
                        let env = self.env_at(depth);
                        let v = reg!(src);
                        self.heap.env_mut(env).slots[slot as usize] = v;
                    }
                    Instr::ThrowIfHole { src, name } => {
                        if reg!(src).is_hole() {
                            tri!(Err::<(), _>(
                                self.uninitialized(code.constants[name as usize])
                            ));
                        }
                    }
                    Instr::LookupObjectEnv {
                        dst,
                        depth,
                        slot,
                        site,
                    } => {
                        let env = self.env_at(depth);
                        let holder = self.heap.env(env).slots[slot as usize];
                        let found = tri!(self.lookup_object_env(holder, code.sites[site as usize]));
                        reg!(dst) = found;
                    }
                    Instr::GetBinding { dst, obj, site } => {
                        let o = reg!(obj);
                        let key = code.sites[site as usize];
                        let v = tri!(self.object_env_get(o, key, code.strict));
                        reg!(dst) = v;
                    }
                    Instr::SetBinding { obj, src, site } => {
                        let (o, v) = (reg!(obj), reg!(src));
                        let key = code.sites[site as usize];
                        tri!(self.object_env_set(o, key, v, code.strict));
                    }
                    Instr::SetFunctionName { func, key } => {
                        let (f, k) = (reg!(func), reg!(key));
                        tri!(self.name_anonymous_function(f, k));
                    }
                    Instr::DeclareEvalVar { site, depth, slot } => {
                        let env = self.env_at(depth);
                        tri!(self.declare_eval_var(env, slot, code.sites[site as usize]));
                    }

                    // ---- globals ----
                    Instr::GetGlobal { dst, site } => {
                        let v = if let Some(v) = self.global_cached(code, site) {
                            v
                        } else {
                            tri!(self.get_global_slow(code, site, true))
                        };
                        reg!(dst) = v;
                    }
                    Instr::GetGlobalOrUndefined { dst, site } => {
                        let v = if let Some(v) = self.global_cached(code, site) {
                            v
                        } else {
                            tri!(self.get_global_slow(code, site, false))
                        };
                        reg!(dst) = v;
                    }
                    Instr::SetGlobal { src, site } => {
                        let v = reg!(src);
                        if !self.set_global_cached(code, site, v) {
                            tri!(self.set_global_slow(code, site, v));
                        }
                    }
                    Instr::CheckGlobalDeclaration { site, kind } => {
                        tri!(self.check_global_declaration(code.sites[site as usize], kind))
                    }
                    Instr::DeclareGlobalVar { site, deletable } => {
                        tri!(self.declare_global_var(code.sites[site as usize], deletable))
                    }
                    Instr::DeclareGlobalFunction {
                        src,
                        site,
                        deletable,
                    } => {
                        let f = reg!(src);
                        let key = code.sites[site as usize];
                        tri!(self.declare_global_function(key, f, deletable))
                    }
                    Instr::DeclareGlobalLexical { site, is_const } => {
                        tri!(self.declare_global_lexical(code.sites[site as usize], is_const))
                    }
                    Instr::InitGlobalLexical { src, site } => {
                        let v = reg!(src);
                        if let PropertyKey::String(name) = code.sites[site as usize]
                            && let Some(&i) = self.global_lexicals.get(&name)
                        {
                            self.global_lexical_values[i as usize].0 = v;
                        }
                    }

                    // ---- properties ----
                    Instr::GetNamed { dst, obj, site } => {
                        let receiver = reg!(obj);
                        let v = match self.get_named_cached(receiver, code, site) {
                            Some(v) => v,
                            None => tri!(self.get_named_slow(receiver, code, site)),
                        };
                        reg!(dst) = v;
                    }
                    Instr::SetNamed { obj, src, site } => {
                        let (receiver, v) = (reg!(obj), reg!(src));
                        if !self.set_named_cached(receiver, v, code, site) {
                            tri!(self.set_named_slow(receiver, v, code, site));
                        }
                    }
                    Instr::GetIndex { dst, obj, key } => {
                        let (o, k) = (reg!(obj), reg!(key));
                        let v = match self.get_element_fast(o, k) {
                            Some(v) => v,
                            None => tri!(self.get_index_slow(o, k)),
                        };
                        reg!(dst) = v;
                    }
                    Instr::GetIndexUpdate { dst, obj, key } => {
                        let (o, k) = (reg!(obj), reg!(key));
                        // An element read needs no conversion: the key is an index already.
                        let (v, k) = match self.get_element_fast(o, k) {
                            Some(v) => (v, k),
                            None => tri!(self.get_index_for_update(o, k)),
                        };
                        reg!(dst) = v;
                        reg!(dst + 1) = k;
                    }
                    Instr::SetIndex { obj, key, src } => {
                        let (o, k, v) = (reg!(obj), reg!(key), reg!(src));
                        if !self.set_element_fast(o, k, v) {
                            tri!(self.set_index_slow(o, k, v, code.strict));
                        }
                    }
                    Instr::DefineNamed { obj, src, site } => {
                        let (o, v) = (reg!(obj), reg!(src));
                        if !self.define_named_cached(o, v, code, site) {
                            tri!(self.define_named_slow(o, v, code, site));
                        }
                    }
                    Instr::DefineIndex { obj, key, src } => {
                        let (o, k, v) = (reg!(obj), reg!(key), reg!(src));
                        let key = tri!(self.to_property_key(k));
                        tri!(self.define_field(o, key, v));
                    }
                    Instr::DefineMethod {
                        obj,
                        key,
                        func,
                        kind,
                    } => {
                        let (o, k, f) = (reg!(obj), reg!(key), reg!(func));
                        tri!(self.define_method(o, k, f, kind));
                    }
                    Instr::Delete { dst, obj, key } => {
                        let (o, k) = (reg!(obj), reg!(key));
                        let r = tri!(self.delete_value(o, k, code.strict));
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::LoadSuperBase { dst } => {
                        let base = tri!(self.super_base());
                        reg!(dst) = base;
                    }
                    Instr::GetSuper { dst, base, key } => {
                        let (b, k, this) = (reg!(base), reg!(key), reg!(0));
                        let v = tri!(self.get_super(b, k, this));
                        reg!(dst) = v;
                    }
                    Instr::SetSuper { base, key, src } => {
                        let (b, k, v, this) = (reg!(base), reg!(key), reg!(src), reg!(0));
                        tri!(self.set_super(b, k, v, this, code.strict));
                    }
                    Instr::GetPrivate { dst, obj, key } => {
                        let (o, k) = (reg!(obj), reg!(key));
                        let v = tri!(self.private_get(o, k));
                        reg!(dst) = v;
                    }
                    Instr::SetPrivate { obj, key, src } => {
                        let (o, k, v) = (reg!(obj), reg!(key), reg!(src));
                        tri!(self.private_set(o, k, v));
                    }
                    Instr::DefinePrivate {
                        obj,
                        key,
                        src,
                        method,
                    } => {
                        let (o, k, v) = (reg!(obj), reg!(key), reg!(src));
                        let attrs = if method { 0 } else { Attrs::WRITABLE };
                        tri!(self.private_define(o, k, v, Attrs(attrs)));
                    }
                    Instr::DefinePrivateAccessor { obj, key, funcs } => {
                        let (o, k, g, s) = (reg!(obj), reg!(key), reg!(funcs), reg!(funcs + 1));
                        let pair = self.new_accessor(g, s);
                        tri!(self.private_define(o, k, pair, Attrs(Attrs::ACCESSOR)));
                    }
                    Instr::HasPrivate { dst, obj, key } => {
                        let (o, k) = (reg!(obj), reg!(key));
                        let r = tri!(self.private_has(o, k));
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::NewPrivateName { dst, desc } => {
                        let description = code.constants[desc as usize].as_string();
                        let s = self.heap.alloc_symbol(crate::heap::Symbol {
                            description,
                            is_private: true,
                            registered: false,
                        });
                        reg!(dst) = Value::symbol(s);
                    }

                    // ---- object construction ----
                    Instr::NewObject { dst, capacity } => {
                        let proto = self.intrinsics.object_prototype;
                        let o = self.heap.new_object_with_room(proto, capacity as usize);
                        reg!(dst) = Value::object(o);
                    }
                    Instr::SetLiteralPrototype { obj, src } => {
                        let v = reg!(src);
                        if let Some(o) = reg!(obj).as_object()
                            && (v.is_null() || v.as_object().is_some())
                        {
                            tri!(self.set_prototype_of(o, v.as_object()));
                        }
                    }
                    Instr::NewArray { dst, capacity } => {
                        let a = self.new_array_with_capacity(capacity as usize);
                        reg!(dst) = Value::object(a);
                    }
                    Instr::ArrayPush { arr, src } => {
                        let (a, v) = (reg!(arr), reg!(src));
                        if let Some(a) = a.as_object()
                            && let Elements::Dense(elements) = &mut self.heap.object_mut(a).elements
                        {
                            elements.push(v);
                        }
                    }
                    Instr::ArraySpread { arr, src } => {
                        let (a, v) = (reg!(arr), reg!(src));
                        tri!(self.array_spread(a, v));
                    }
                    Instr::CopyDataProperties { dst, src } => {
                        let (d, s) = (reg!(dst), reg!(src));
                        tri!(self.copy_data_properties(d, s, Value::UNDEFINED));
                    }
                    Instr::CopyDataPropertiesExcept { dst, src, excluded } => {
                        let (d, s, e) = (reg!(dst), reg!(src), reg!(excluded));
                        tri!(self.copy_data_properties(d, s, e));
                    }
                    Instr::Closure { dst, func } => {
                        let f = self.make_closure(code, func);
                        reg!(dst) = Value::object(f);
                    }
                    Instr::CreateClass {
                        dst,
                        func,
                        heritage,
                    } => {
                        let h = reg!(heritage);
                        let (ctor, proto) = tri!(self.create_class(code, func, h));
                        reg!(dst) = Value::object(ctor);
                        reg!(dst + 1) = Value::object(proto);
                    }
                    Instr::SetHomeObject { func, obj } => {
                        let (f, o) = (reg!(func), reg!(obj));
                        if let (Some(f), Some(o)) = (f.as_object(), o.as_object())
                            && let ObjectKind::Closure(c) = &mut self.heap.object_mut(f).kind
                        {
                            c.set_home_object(o);
                        }
                    }
                    Instr::SetClassFields { class, init } => {
                        let (c, i) = (reg!(class), reg!(init));
                        if let (Some(c), Some(i)) = (c.as_object(), i.as_object())
                            && let ObjectKind::Closure(closure) = &mut self.heap.object_mut(c).kind
                        {
                            closure.set_fields(i);
                        }
                    }
                    Instr::InitClassFields => {
                        let callee = self.frames.last().expect("frame").callee;
                        let this = reg!(0);
                        tri!(self.initialize_fields(callee, this));
                    }
                    Instr::NewRegExp { dst, idx } => {
                        let r = tri!(self.regexp_literal(code, idx));
                        reg!(dst) = r;
                    }
                    Instr::GetTemplateObject { dst, idx } => {
                        let t = self.template_object(code, idx);
                        reg!(dst) = Value::object(t);
                    }
                    Instr::CreateArguments { dst, mapped } => {
                        let a = self.create_arguments(mapped);
                        reg!(dst) = Value::object(a);
                    }
                    Instr::CreateRestArray { dst, from } => {
                        let frame = self.frames.last().expect("frame");
                        let (at, argc) = (frame.args_at as usize, frame.argc as usize);
                        let rest: Vec<Value> = if (from as usize) < argc {
                            self.stack[at + from as usize..at + argc].to_vec()
                        } else {
                            vec![]
                        };
                        let a = self.array_from_values(rest);
                        reg!(dst) = Value::object(a);
                    }

                    // ---- operators ----
                    Instr::Add { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
                            match x.checked_add(y) {
                                Some(s) => Value::int(s),
                                None => Value::double(x as f64 + y as f64),
                            }
                        } else if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
                            Value::number(x + y)
                        } else {
                            tri!(self.add_slow(a, b))
                        };
                        reg!(dst) = r;
                    }
                    Instr::AddImm { dst, lhs, imm } => {
                        let a = reg!(lhs);
                        let r = if let Some(x) = a.as_int() {
                            match x.checked_add(imm as i32) {
                                Some(s) => Value::int(s),
                                None => Value::double(x as f64 + imm as f64),
                            }
                        } else if let Some(x) = a.as_number() {
                            Value::number(x + imm as f64)
                        } else {
                            tri!(self.add_slow(a, Value::int(imm as i32)))
                        };
                        reg!(dst) = r;
                    }
                    Instr::Sub { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| x
                            .checked_sub(y)
                            .map_or(Value::double(x as f64 - y as f64), Value::int),
                        |x: f64, y: f64| x - y,
                        BinaryOp::Sub
                    ),
                    Instr::Mul { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| match x.checked_mul(y) {
                            Some(0) if x < 0 || y < 0 => Value::double(-0.0),
                            Some(p) => Value::int(p),
                            None => Value::double(x as f64 * y as f64),
                        },
                        |x: f64, y: f64| x * y,
                        BinaryOp::Mul
                    ),
                    Instr::Div { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::number(x as f64 / y as f64),
                        |x: f64, y: f64| x / y,
                        BinaryOp::Div
                    ),
                    Instr::Mod { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| match x.checked_rem(y) {
                            // a zero remainder of a negative dividend is -0, a double
                            Some(r) if r != 0 || x >= 0 => Value::int(r),
                            _ => Value::number(super::operators::number_rem(x as f64, y as f64)),
                        },
                        super::operators::number_rem,
                        BinaryOp::Mod
                    ),
                    Instr::Exp { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::number(super::operators::number_pow(
                            x as f64, y as f64
                        )),
                        super::operators::number_pow,
                        BinaryOp::Exp
                    ),
                    Instr::BitAnd { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::int(x & y),
                        |x, y| super::operators::number_op(BinaryOp::BitAnd, x, y),
                        BinaryOp::BitAnd
                    ),
                    Instr::BitOr { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::int(x | y),
                        |x, y| super::operators::number_op(BinaryOp::BitOr, x, y),
                        BinaryOp::BitOr
                    ),
                    Instr::BitXor { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::int(x ^ y),
                        |x, y| super::operators::number_op(BinaryOp::BitXor, x, y),
                        BinaryOp::BitXor
                    ),
                    Instr::Shl { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::int(x.wrapping_shl(y as u32 & 31)),
                        |x, y| super::operators::number_op(BinaryOp::Shl, x, y),
                        BinaryOp::Shl
                    ),
                    Instr::Shr { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::int(x >> (y as u32 & 31)),
                        |x, y| super::operators::number_op(BinaryOp::Shr, x, y),
                        BinaryOp::Shr
                    ),
                    Instr::UShr { dst, lhs, rhs } => int_or_slow!(
                        dst,
                        lhs,
                        rhs,
                        |x: i32, y: i32| Value::number(((x as u32) >> (y as u32 & 31)) as f64),
                        |x, y| super::operators::number_op(BinaryOp::UShr, x, y),
                        BinaryOp::UShr
                    ),
                    Instr::Eq { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = match loose_equals_fast(a, b) {
                            Some(r) => r,
                            None => tri!(self.loose_equals(a, b)),
                        };
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::NotEq { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = match loose_equals_fast(a, b) {
                            Some(r) => r,
                            None => tri!(self.loose_equals(a, b)),
                        };
                        reg!(dst) = Value::bool(!r);
                    }
                    Instr::StrictEq { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = self.strict_equals_inline(a, b);
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::StrictNotEq { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = self.strict_equals_inline(a, b);
                        reg!(dst) = Value::bool(!r);
                    }
                    Instr::Lt { dst, lhs, rhs } => compare!(dst, lhs, rhs, <, false, false),
                    Instr::Gt { dst, lhs, rhs } => compare!(dst, lhs, rhs, >, true, false),
                    Instr::Le { dst, lhs, rhs } => compare!(dst, lhs, rhs, <=, true, true),
                    Instr::Ge { dst, lhs, rhs } => compare!(dst, lhs, rhs, >=, false, true),
                    Instr::InstanceOf { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = tri!(self.instance_of(a, b));
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::In { dst, lhs, rhs } => {
                        let (a, b) = (reg!(lhs), reg!(rhs));
                        let r = tri!(self.has_property_value(b, a));
                        reg!(dst) = Value::bool(r);
                    }
                    Instr::Neg { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = match a.as_int() {
                            Some(x) if x != 0 && x != i32::MIN => Value::int(-x),
                            _ => match a.as_number() {
                                Some(x) => Value::double(-x),
                                None => tri!(self.negate_slow(a)),
                            },
                        };
                    }
                    Instr::BitNot { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = match a.as_int() {
                            Some(x) => Value::int(!x),
                            None => tri!(self.bitnot_slow(a)),
                        };
                    }
                    Instr::Not { dst, src } => {
                        let v = reg!(src);
                        reg!(dst) = Value::bool(!self.to_boolean(v));
                    }
                    Instr::TypeOf { dst, src } => {
                        let v = reg!(src);
                        reg!(dst) = Value::string(self.type_of(v));
                    }
                    Instr::TypeOfIs { dst, src, name } => {
                        let v = reg!(src);
                        reg!(dst) = Value::bool(self.type_name(v) == name);
                    }
                    Instr::ToNumber { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = if a.is_number() {
                            a
                        } else {
                            Value::number(tri!(self.to_number(a)))
                        };
                    }
                    Instr::ToNumeric { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = if a.is_number() {
                            a
                        } else {
                            tri!(self.to_numeric(a))
                        };
                    }
                    Instr::Inc { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = match a.as_int() {
                            Some(x) if x < i32::MAX => Value::int(x + 1),
                            _ => tri!(self.increment_slow(a, 1)),
                        };
                    }
                    Instr::Dec { dst, src } => {
                        let a = reg!(src);
                        reg!(dst) = match a.as_int() {
                            Some(x) if x > i32::MIN => Value::int(x - 1),
                            _ => tri!(self.increment_slow(a, -1)),
                        };
                    }
                    Instr::ToString { dst, src } => {
                        let a = reg!(src);
                        let s = tri!(self.to_string(a));
                        reg!(dst) = Value::string(s);
                    }
                    Instr::ToPropertyKey { dst, src } => {
                        let a = reg!(src);
                        let k = tri!(self.to_property_key(a));
                        reg!(dst) = self.key_to_value(k);
                    }
                    Instr::ToObject { dst, src } => {
                        let a = reg!(src);
                        let o = tri!(self.to_object(a));
                        reg!(dst) = Value::object(o);
                    }
                    Instr::ThrowIfNotObject { src } => {
                        let a = reg!(src);
                        if !a.is_object() {
                            let what = self.display(a);
                            tri!(Err::<(), _>(
                                self.type_error(format!("{what} is not an object"))
                            ));
                        }
                    }

                    // ---- control ----
                    Instr::Jump { offset } => jump!(offset),
                    Instr::Loop { offset } => {
                        jump!(offset);
                        // A safe point collects and checks budgets; it never moves the stack,
                        // so the registers' pointer stays.
                        sync!();
                        or_unwind!(self.safe_point(offset.unsigned_abs() as u64));
                    }
                    Instr::JumpIfTrue { src, offset } => {
                        let v = reg!(src);
                        if v == Value::TRUE || (v != Value::FALSE && self.to_boolean(v)) {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfFalse { src, offset } => {
                        let v = reg!(src);
                        if v == Value::FALSE || (v != Value::TRUE && !self.to_boolean(v)) {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfNullish { src, offset } => {
                        if reg!(src).is_nullish() {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfNotNullish { src, offset } => {
                        if !reg!(src).is_nullish() {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfUndefined { src, offset } => {
                        if reg!(src).is_undefined() {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfNotUndefined { src, offset } => {
                        if !reg!(src).is_undefined() {
                            jump!(offset);
                        }
                    }
                    Instr::JumpIfHole { src, offset } => {
                        if reg!(src).is_hole() {
                            jump!(offset);
                        }
                    }
                    Instr::SwitchInt { src, table } => {
                        if let Some(target) = switch_target(code, table, reg!(src)) {
                            pc = target;
                        }
                    }
                    Instr::Throw { src } => {
                        let v = reg!(src);
                        tri!(Err::<(), _>(self.throw(v)));
                    }
                    Instr::ThrowError { kind, msg } => {
                        let m = self.display(code.constants[msg as usize]);
                        let t = match kind {
                            ErrorKind::TypeError => self.type_error(m),
                            ErrorKind::ReferenceError => self.reference_error(m),
                            ErrorKind::SyntaxError => self.syntax_error(m),
                            ErrorKind::RangeError => self.range_error(m),
                        };
                        tri!(Err::<(), _>(t));
                    }
                    Instr::Return { src } => {
                        let v = reg!(src);
                        if let Some(ret) = self.pop_plain_frame() {
                            self.stack.truncate(base);
                            match ret {
                                ReturnTo::Register(r) => {
                                    // The caller's registers are below this frame's.
                                    let caller =
                                        self.frames.last().expect("caller frame").base as usize;
                                    self.stack[caller + r as usize] = v;
                                    continue 'frames;
                                }
                                ReturnTo::Exit => return Ok(Exit::Return(v)),
                            }
                        }
                        leave!(self.return_from_frame(v))
                    }
                    Instr::ReturnUndefined => leave!(self.return_from_frame(Value::UNDEFINED)),
                    Instr::ReturnDerived { src } => {
                        let v = reg!(src);
                        let this = reg!(0);
                        sync!();
                        if v.is_object() || v.is_undefined() && !this.is_hole() {
                            let result = if v.is_object() { v } else { this };
                            flow!(self.return_from_frame(result));
                        }
                        match self.derived_result_error(v) {
                            Ok(Flow::Continue) => continue 'frames,
                            Ok(Flow::Exit(e)) => return Ok(e),
                            Err(t) => return Err(t),
                        }
                    }
                    Instr::EndFinally { kind } => {
                        let k = reg!(kind).as_int().unwrap_or(0);
                        let v = reg!(kind + 1);
                        if k == Completion::Throw as i32 {
                            tri!(Err::<(), _>(self.throw(v)));
                        } else if k == Completion::Return as i32 {
                            sync!();
                            flow!(self.return_through_finally(v));
                        }
                    }

                    // ---- calls ----
                    Instr::CallEval {
                        dst,
                        func,
                        args,
                        argc: 255,
                    } => {
                        // `eval(...list)`: a direct eval of the list's first element.
                        let f = reg!(func);
                        let this = reg!(args);
                        let list = reg!(args + 1);
                        sync!();
                        let values = tri!(self.spread_values(list));
                        let r = if f == Value::object(self.intrinsics.eval) {
                            let arg = values.first().copied().unwrap_or(Value::UNDEFINED);
                            self.direct_eval(arg, code.strict)
                        } else {
                            self.call(f, this, &values)
                        };
                        reg!(dst) = tri!(r);
                    }
                    Instr::Call {
                        dst,
                        func,
                        args,
                        argc,
                    }
                    | Instr::CallEval {
                        dst,
                        func,
                        args,
                        argc,
                    } => {
                        let f = reg!(func);
                        let this = reg!(args);
                        sync!();
                        if let Instr::CallEval { .. } = instr
                            && f == Value::object(self.intrinsics.eval)
                        {
                            let arg = if argc > 0 {
                                reg!(args + 1)
                            } else {
                                Value::UNDEFINED
                            };
                            let r = tri!(self.direct_eval(arg, code.strict));
                            reg!(dst) = r;
                            continue;
                        }
                        let start = base + args as usize + 1;
                        if tri!(self.push_plain_call(f, this, start, argc as usize, dst)) {
                            continue 'frames;
                        }
                        flow!(self.call_instruction(
                            f,
                            this,
                            base + args as usize + 1,
                            argc as usize,
                            dst
                        ));
                    }
                    Instr::CallNoThis {
                        dst,
                        func,
                        args,
                        argc,
                    } => {
                        let f = reg!(func);
                        sync!();
                        let start = base + args as usize + 1;
                        if tri!(self.push_plain_call(
                            f,
                            Value::UNDEFINED,
                            start,
                            argc as usize,
                            dst
                        )) {
                            continue 'frames;
                        }
                        flow!(self.call_instruction(
                            f,
                            Value::UNDEFINED,
                            base + args as usize + 1,
                            argc as usize,
                            dst
                        ));
                    }
                    Instr::TailCall { func, args, argc } => {
                        let f = reg!(func);
                        let this = reg!(args);
                        sync!();
                        flow!(self.tail_call(f, this, base + args as usize + 1, argc as usize));
                    }
                    Instr::CallSpread { dst, func, args } => {
                        let f = reg!(func);
                        let this = reg!(args);
                        let list = reg!(args + 1);
                        sync!();
                        let values = tri!(self.spread_values(list));
                        reg!(dst) = tri!(self.call(f, this, &values));
                    }
                    Instr::New {
                        dst,
                        func,
                        args,
                        argc,
                    } => {
                        let f = reg!(func);
                        sync!();
                        flow!(self.new_instruction(
                            f,
                            base + args as usize + 1,
                            argc as usize,
                            dst
                        ));
                    }
                    Instr::NewSpread { dst, func, args } => {
                        let f = reg!(func);
                        let list = reg!(args + 1);
                        sync!();
                        let values = tri!(self.spread_values(list));
                        let r = tri!(self.construct(f, &values, None));
                        reg!(dst) = r;
                    }
                    Instr::SuperCall { dst, args, argc } => {
                        sync!();
                        let values = self.stack
                            [base + args as usize + 1..base + args as usize + 1 + argc as usize]
                            .to_vec();
                        let r = tri!(self.super_call(&values));
                        reg!(0) = r;
                        reg!(dst) = r;
                    }
                    Instr::SuperCallForward { dst } => {
                        sync!();
                        let frame = self.frames.last().expect("frame");
                        let (at, argc) = (frame.args_at as usize, frame.argc as usize);
                        let values = self.stack[at..at + argc].to_vec();
                        let r = tri!(self.super_call(&values));
                        reg!(0) = r;
                        reg!(dst) = r;
                    }
                    Instr::SuperCallSpread { dst, args } => {
                        sync!();
                        let list = reg!(args + 1);
                        let values = tri!(self.spread_values(list));
                        let r = tri!(self.super_call(&values));
                        reg!(0) = r;
                        reg!(dst) = r;
                    }
                    Instr::SuperCallFrom {
                        dst,
                        func,
                        args,
                        argc,
                    } => {
                        sync!();
                        let (ctor, new_target, this_now) =
                            (reg!(func), reg!(func + 1), reg!(func + 2));
                        let values = if argc == 255 {
                            let list = reg!(args + 1);
                            tri!(self.spread_values(list))
                        } else {
                            let start = base + args as usize + 1;
                            self.stack[start..start + argc as usize].to_vec()
                        };
                        let r = tri!(self.super_call_from(ctor, new_target, this_now, &values));
                        reg!(dst) = r;
                    }

                    // ---- iteration ----
                    Instr::GetIterator { iter, src } => {
                        let v = reg!(src);
                        let (it, next) = tri!(self.get_iterator(v));
                        reg!(iter) = it;
                        reg!(iter + 1) = next;
                    }
                    Instr::GetAsyncIterator { iter, src } => {
                        let v = reg!(src);
                        let (it, next) = tri!(self.get_async_iterator(v));
                        reg!(iter) = it;
                        reg!(iter + 1) = next;
                    }
                    Instr::IteratorNext { dst, iter } => {
                        let (it, next) = (reg!(iter), reg!(iter + 1));
                        let (value, done) = tri!(self.iterator_step(it, next));
                        reg!(dst) = value;
                        reg!(dst + 1) = Value::bool(done);
                    }
                    Instr::IteratorClose { iter } => {
                        let it = reg!(iter);
                        tri!(self.iterator_close(it));
                    }
                    Instr::IteratorCloseOnThrow { iter } => {
                        let it = reg!(iter);
                        self.iterator_close_after_throw(it, crate::Thrown);
                        refresh!();
                    }
                    Instr::ForInPrepare { dst, src } => {
                        let v = reg!(src);
                        let it = tri!(self.for_in_prepare(v));
                        reg!(dst) = it;
                    }
                    Instr::ForInNext { dst, iter } => {
                        let it = reg!(iter);
                        let (key, done) = tri!(self.for_in_next(it));
                        reg!(dst) = key;
                        reg!(dst + 1) = Value::bool(done);
                    }

                    // ---- explicit resource management ----
                    Instr::AddDisposable {
                        list,
                        src,
                        is_async,
                    } => {
                        let (l, v) = (reg!(list), reg!(src));
                        reg!(list) = tri!(self.add_disposable_resource(l, v, is_async));
                    }
                    Instr::DisposeResources { dst, list, kind } => {
                        let (l, k, v) = (reg!(list), reg!(kind), reg!(kind + 1));
                        let mut error = (k == Value::int(Completion::Throw as i32)).then_some(v);
                        let mark = self.roots.len();
                        let step = match l.as_object() {
                            Some(l) => self.dispose_resources_step(l, &mut error),
                            None => Ok(None),
                        };
                        refresh!();
                        self.roots.truncate(mark);
                        if let Some(e) = error {
                            reg!(kind) = Value::int(Completion::Throw as i32);
                            reg!(kind + 1) = e;
                        }
                        reg!(dst) = tri!(step).unwrap_or(Value::HOLE);
                    }
                    Instr::SuppressError { kind, src } => {
                        let (k, v, e) = (reg!(kind), reg!(kind + 1), reg!(src));
                        let mut error = (k == Value::int(Completion::Throw as i32)).then_some(v);
                        let mark = self.roots.len();
                        self.suppress_dispose_error(&mut error, e);
                        refresh!();
                        self.roots.truncate(mark);
                        reg!(kind) = Value::int(Completion::Throw as i32);
                        reg!(kind + 1) = error.unwrap_or(e);
                    }

                    // ---- generators and async ----
                    Instr::InitialYield => {
                        sync!();
                        flow!(Ok::<Flow, crate::Thrown>(self.initial_yield()));
                    }
                    // Both suspend with pc left on the instruction; on resumption it runs again
                    // and consumes the resumption.
                    Instr::Yield { dst, src } | Instr::Await { dst, src } => {
                        if let Some((mode, value)) = self.take_resumption() {
                            match mode {
                                ResumeMode::Next => reg!(dst) = value,
                                ResumeMode::Throw => tri!(Err::<(), _>(self.throw(value))),
                                ResumeMode::Return => {
                                    sync!();
                                    flow!(self.return_through_finally(value));
                                }
                            }
                        } else {
                            let v = reg!(src);
                            pc -= 1;
                            sync!();
                            if let Instr::Yield { .. } = instr {
                                flow!(self.yield_value(v));
                            } else {
                                flow!(self.await_value(v));
                            }
                        }
                    }
                    Instr::YieldDelegate { dst, iter } => {
                        let resumption = self.take_resumption();
                        let it = reg!(iter);
                        let next = reg!(iter + 1);
                        sync!();
                        match tri!(self.yield_delegate_step(it, next, resumption)) {
                            DelegateStep::Done(v) => reg!(dst) = v,
                            DelegateStep::Return(v) => flow!(self.return_through_finally(v)),
                            DelegateStep::Yield(result) => {
                                pc -= 1;
                                sync!();
                                flow!(self.yield_raw(result));
                            }
                        }
                    }
                    Instr::YieldDelegateAsync { dst, iter } => {
                        let resumption = self.take_resumption();
                        let (it, next, state) = (reg!(iter), reg!(iter + 1), reg!(iter + 2));
                        sync!();
                        match tri!(self.yield_delegate_async_step(it, next, state, resumption)) {
                            AsyncDelegateStep::Done(v) => reg!(dst) = v,
                            AsyncDelegateStep::Return(v) => flow!(self.return_through_finally(v)),
                            AsyncDelegateStep::Await(v, state) => {
                                reg!(iter + 2) = Value::int(state as i32);
                                pc -= 1;
                                sync!();
                                flow!(self.await_value(v));
                            }
                            AsyncDelegateStep::Yield(v) => {
                                reg!(iter + 2) = Value::int(AsyncDelegateState::AtYield as i32);
                                pc -= 1;
                                sync!();
                                flow!(self.yield_value(v));
                            }
                        }
                    }

                    Instr::Debugger => {}
                    Instr::ImportDynamic { dst, src, source } => {
                        let (specifier, options) = (reg!(src), reg!(src + 1));
                        reg!(dst) = tri!(self.import_dynamic_call(specifier, options, source));
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn env_at(&self, depth: u8) -> crate::heap::EnvId {
        let mut env = self
            .frames
            .last()
            .expect("frame")
            .env
            .expect("an environment");
        for _ in 0..depth {
            env = self.heap.env(env).parent.expect("a parent environment");
        }
        env
    }

    fn uninitialized(&mut self, name: Value) -> crate::Thrown {
        let n = self.display(name);
        self.reference_error(format!("Cannot access '{n}' before initialization"))
    }

    /// Sloppy-mode `this`: the global object for undefined/null, a wrapper for primitives.
    fn coerce_this(&mut self, this: Value, strict: bool) -> JsResult<Value> {
        if this.is_hole() {
            return Err(self.reference_error(
                "Must call super constructor in derived class before accessing 'this'",
            ));
        }
        if strict {
            return Ok(this);
        }
        if this.is_nullish() {
            return Ok(Value::object(self.intrinsics.global));
        }
        Ok(Value::object(self.to_object(this)?))
    }

    // ---- calls and returns ----

    /// A `Call` instruction: closures continue in this loop, anything else is called natively.
    fn call_instruction(
        &mut self,
        f: Value,
        this: Value,
        start: usize,
        argc: usize,
        dst: u16,
    ) -> JsResult<Flow> {
        let (f, this, start, argc) = self.unwrap_function_call(f, this, start, argc);
        if f == Value::object(self.intrinsics.function_apply) && self.is_callable(this) {
            return self.apply_instruction(this, start, argc, dst);
        }
        if let Some(fobj) = f.as_object()
            && let ObjectKind::Closure(c) = &self.heap.object(fobj).kind
            && !c.code.kind.is_class_constructor()
        {
            let code = c.code.clone();
            let env = c.env;
            self.push_frame_from_stack(
                code,
                fobj,
                env,
                this,
                start,
                argc,
                Value::UNDEFINED,
                ReturnTo::Register(dst),
                false,
            )?;
            self.enter_frame()?;
            return Ok(Flow::Continue);
        }
        let r = self.call_from_stack(f, this, start, argc, Value::UNDEFINED)?;
        let base = self.frames.last().expect("frame").base as usize;
        self.stack[base + dst as usize] = r;
        Ok(Flow::Continue)
    }

    /// The common call: a normal function, arrow or method of the running realm. Its frame
    /// is pushed here, inlined into the loop, without the generic path's checks for
    /// `call`/`apply`, class constructors, realms and async functions; `Ok(false)` when
    /// `f` is anything else.
    #[inline(always)]
    fn push_plain_call(
        &mut self,
        f: Value,
        this: Value,
        start: usize,
        argc: usize,
        dst: u16,
    ) -> JsResult<bool> {
        let Some(fobj) = f.as_object() else {
            return Ok(false);
        };
        let ObjectKind::Closure(c) = &self.heap.object(fobj).kind else {
            return Ok(false);
        };
        if !matches!(
            c.code.kind,
            FunctionKind::Normal | FunctionKind::Arrow | FunctionKind::Method
        ) || c.code.realm != self.realm
        {
            return Ok(false);
        }
        let (code, env) = (c.code.clone(), c.env);
        self.push_frame_from_stack(
            code,
            fobj,
            env,
            this,
            start,
            argc,
            Value::UNDEFINED,
            ReturnTo::Register(dst),
            false,
        )?;
        self.safe_point(super::meter::CALL_COST)?;
        Ok(true)
    }

    /// Pop the running frame if returning from it is only that: it runs in its caller's
    /// realm, not as a constructor or a generator. Where its value goes, or `None`
    /// (nothing popped) for [`Vm::return_from_frame`].
    #[inline(always)]
    fn pop_plain_frame(&mut self) -> Option<ReturnTo> {
        let frame = self.frames.last().expect("frame");
        if frame.construct || frame.generator.is_some() || frame.caller_realm != self.realm {
            return None;
        }
        let ret = frame.ret;
        self.frames.truncate(self.frames.len() - 1);
        Some(ret)
    }

    fn new_instruction(&mut self, f: Value, start: usize, argc: usize, dst: u16) -> JsResult<Flow> {
        if !self.is_constructor(f) {
            let what = self.display(f);
            return Err(self.type_error(format!("{what} is not a constructor")));
        }
        if let Some(fobj) = f.as_object()
            && let ObjectKind::Closure(c) = &self.heap.object(fobj).kind
        {
            let code = c.code.clone();
            let env = c.env;
            let (this, construct) = self.prepare_construct(fobj, &code, f)?;
            self.push_frame_from_stack(
                code,
                fobj,
                env,
                this,
                start,
                argc,
                f,
                ReturnTo::Register(dst),
                construct,
            )?;
            self.enter_frame()?;
            return Ok(Flow::Continue);
        }
        let r = self.call_from_stack(f, Value::UNDEFINED, start, argc, f)?;
        let base = self.frames.last().expect("frame").base as usize;
        self.stack[base + dst as usize] = r;
        Ok(Flow::Continue)
    }

    /// Work every new frame does before its first instruction: a GC safe point, and for
    /// async functions the promise their call returns.
    pub(crate) fn enter_frame(&mut self) -> JsResult<()> {
        self.safe_point(super::meter::CALL_COST)?;
        let kind = self.frames.last().expect("frame").code.kind;
        if matches!(kind, FunctionKind::Async | FunctionKind::AsyncArrow) {
            let state =
                self.new_generator_state(SuspendKind::Async, self.intrinsics.object_prototype);
            let promise = self.new_promise();
            if let ObjectKind::Generator(g) = &mut self.heap.object_mut(state).kind {
                g.promise = Some(promise);
                g.status = GeneratorStatus::Executing;
            }
            self.frames.last_mut().expect("frame").generator = Some(state);
        }
        Ok(())
    }

    /// `g.call(t, ...args)` is the call `g(...args)` with `this` = `t`: unwrapped, it runs in
    /// this loop like any call instead of re-entering the interpreter from the native `call`.
    #[inline(always)]
    fn unwrap_function_call(
        &self,
        mut f: Value,
        mut this: Value,
        mut start: usize,
        mut argc: usize,
    ) -> (Value, Value, usize, usize) {
        while f == Value::object(self.intrinsics.function_call) && self.is_callable(this) {
            f = this;
            if argc == 0 {
                this = Value::UNDEFINED;
            } else {
                this = self.stack[start];
                start += 1;
                argc -= 1;
            }
        }
        (f, this, start, argc)
    }

    /// `f.apply(this, list)` from a `Call` instruction: the list's values are pushed above
    /// the running frame and the call takes them as its arguments in place, so a closure
    /// runs in this loop and no argument vector is allocated.
    #[inline(never)]
    fn apply_instruction(
        &mut self,
        f: Value,
        start: usize,
        argc: usize,
        dst: u16,
    ) -> JsResult<Flow> {
        let arg = |i: usize| {
            if i < argc {
                self.stack[start + i]
            } else {
                Value::UNDEFINED
            }
        };
        let (this, list) = (arg(0), arg(1));
        let top = self.stack.len();
        let frames = self.frames.len();
        let flow = if list.is_nullish() {
            Ok(0)
        } else {
            self.push_list_from_array_like(list)
        }
        .and_then(|count| self.call_instruction(f, this, top, count, dst));
        // A frame the call pushed lies above the list it copied; otherwise the call is over.
        if self.frames.len() > frames {
            self.lower_running_frame(top);
        } else {
            self.stack.truncate(top);
        }
        flow
    }

    /// Move the running frame's values down to `to`, dropping what lay between: the
    /// arguments its caller left on the stack, already copied into the frame.
    fn lower_running_frame(&mut self, to: usize) {
        let frame = self.frames.last_mut().expect("frame");
        let base = frame.base as usize;
        let len = self.stack.len() - base;
        self.stack.copy_within(base.., to);
        self.stack.truncate(to + len);
        frame.base = to as u32;
        frame.args_at -= (base - to) as u32;
    }

    /// A strict-mode tail call: the callee's frame replaces the current one.
    fn tail_call(&mut self, f: Value, this: Value, start: usize, argc: usize) -> JsResult<Flow> {
        let (f, this, start, argc) = self.unwrap_function_call(f, this, start, argc);
        let frame = self.frames.last().expect("frame");
        let replaceable = frame.generator.is_none() && !frame.construct;
        if replaceable
            && let Some(fobj) = f.as_object()
            && let ObjectKind::Closure(c) = &self.heap.object(fobj).kind
            && !c.code.kind.is_class_constructor()
            && !c.code.kind.is_async()
        {
            let code = c.code.clone();
            let env = c.env;
            // The old frame goes without re-entering its caller's realm: the new frame
            // returns to that caller, so it takes over `caller_realm`.
            let old = self.frames.pop().expect("frame");
            // Move the arguments down to where the old frame started.
            let old_base = old.base as usize;
            self.stack.copy_within(start..start + argc, old_base);
            self.stack.truncate(old_base + argc);
            let pushed = self.push_frame_from_stack(
                code,
                fobj,
                env,
                this,
                old_base,
                argc,
                Value::UNDEFINED,
                old.ret,
                false,
            );
            if let Err(t) = pushed {
                self.stack.truncate(old_base);
                self.frames.push(old);
                return Err(t);
            }
            // The new frame's registers start above the moved arguments; shift them down.
            self.lower_running_frame(old_base);
            self.frames.last_mut().expect("frame").caller_realm = old.caller_realm;
            self.enter_frame()?;
            return Ok(Flow::Continue);
        }
        let r = self.call_from_stack(f, this, start, argc, Value::UNDEFINED)?;
        self.return_from_frame(r)
    }

    /// A derived constructor returned `value`, neither an object nor undefined with
    /// `this` initialised. [[Construct]] checks the result once the constructor's context
    /// is gone: the error is made in the caller's realm and unwinds from the caller (no
    /// handler of the constructor sees it); Err when the caller is native.
    #[cold]
    #[inline(never)]
    fn derived_result_error(&mut self, value: Value) -> JsResult<Flow> {
        let frame = self.pop_frame();
        self.stack.truncate(frame.base as usize);
        let thrown = if value.is_undefined() {
            self.reference_error(
                "Must call super constructor in derived class before accessing 'this' or returning from derived constructor",
            )
        } else {
            self.type_error("Derived constructors may only return object or undefined")
        };
        if frame.ret == ReturnTo::Exit {
            return Err(thrown);
        }
        self.unwind_exception()
    }

    /// Pop the running frame, delivering `value` to its caller.
    fn return_from_frame(&mut self, value: Value) -> JsResult<Flow> {
        // `pop_frame`, written out: the fields it needs are read in place and the frame is
        // dropped where it lies, instead of copied out whole.
        let frame = self.frames.last().expect("frame");
        let (base, ret, construct, generator, caller_realm) = (
            frame.base as usize,
            frame.ret,
            frame.construct,
            frame.generator,
            frame.caller_realm,
        );
        self.frames.truncate(self.frames.len() - 1);
        if caller_realm != self.realm {
            self.enter_realm(caller_realm);
        }
        let mut value = value;
        if construct && !value.is_object() {
            value = self.stack[base];
        }
        if let Some(generator) = generator {
            value = self.finish_suspendable(generator, Ok(value))?;
        }
        self.stack.truncate(base);
        Ok(self.deliver(ret, value))
    }

    fn deliver(&mut self, ret: ReturnTo, value: Value) -> Flow {
        match ret {
            ReturnTo::Exit => Flow::Exit(Exit::Return(value)),
            ReturnTo::Register(r) => {
                let base = self.frames.last().expect("caller frame").base as usize;
                self.stack[base + r as usize] = value;
                Flow::Continue
            }
        }
    }

    /// A generator/async frame finished with a value or an exception: settle its state and
    /// produce what the resumer receives.
    fn finish_suspendable(
        &mut self,
        generator: ObjectId,
        outcome: Result<Value, Value>,
    ) -> JsResult<Value> {
        let (kind, promise) = match &mut self.heap.object_mut(generator).kind {
            ObjectKind::Generator(g) => {
                g.status = GeneratorStatus::Completed;
                g.frame = None;
                (g.kind, g.promise)
            }
            _ => return outcome.map_err(|e| self.throw(e)),
        };
        match kind {
            SuspendKind::Generator => match outcome {
                Ok(v) => Ok(self.iter_result(v, true)),
                Err(e) => Err(self.throw(e)),
            },
            SuspendKind::Async => {
                let promise = promise.expect("async function promise");
                match outcome {
                    Ok(v) => self.resolve_promise(promise, v)?,
                    Err(e) => self.reject_promise(promise, e),
                }
                Ok(Value::object(promise))
            }
            SuspendKind::AsyncGenerator => {
                self.async_generator_complete(generator, outcome);
                Ok(Value::UNDEFINED)
            }
        }
    }

    /// `return` out of a generator (resumed with return, or EndFinally with a Return
    /// completion): run enclosing finally blocks first.
    fn return_through_finally(&mut self, value: Value) -> JsResult<Flow> {
        let frame = self.frames.last().expect("frame");
        let pc = frame.pc.saturating_sub(1);
        let handler = frame
            .code
            .code
            .handlers
            .iter()
            .find(|h| {
                h.is_finally
                    && h.start <= pc
                    && pc < h.end
                    && h.target != frame.pc.saturating_sub(0)
            })
            .copied();
        // Only finally blocks that enclose the current position and that we are not already in.
        if let Some(h) = handler.filter(|h| !(h.target <= pc && self.inside_finally_body(h, pc))) {
            self.enter_handler(h, Completion::Return, value);
            return Ok(Flow::Continue);
        }
        self.return_from_frame(value)
    }

    fn inside_finally_body(&self, h: &kiln_bytecode::Handler, pc: u32) -> bool {
        pc >= h.target
    }

    /// Jump to a handler with a completion.
    fn enter_handler(&mut self, h: kiln_bytecode::Handler, kind: Completion, value: Value) {
        let frame = self.frames.last_mut().expect("frame");
        while frame.env_depth > h.env_depth {
            if let Some(e) = frame.env {
                frame.env = self.heap.env(e).parent;
            }
            frame.env_depth -= 1;
        }
        frame.pc = h.target;
        let base = frame.base as usize;
        if h.is_finally {
            self.stack[base + h.reg as usize] = Value::int(kind as i32);
            self.stack[base + h.reg as usize + 1] = value;
        } else {
            self.stack[base + h.reg as usize] = value;
        }
    }

    /// Find a handler for the pending exception, popping frames that have none.
    fn unwind_exception(&mut self) -> JsResult<Flow> {
        if self.exception_origin.is_none() {
            self.exception_origin = self.current_position();
        }
        loop {
            let frame = self.frames.last().expect("frame");
            let pc = frame.pc.saturating_sub(1);
            if !self.terminating() {
                let handler = frame
                    .code
                    .code
                    .handlers
                    .iter()
                    .find(|h| h.start <= pc && pc < h.end)
                    .copied();
                if let Some(h) = handler {
                    let value = self.exception;
                    self.exception = Value::UNDEFINED;
                    self.exception_origin = None;
                    self.enter_handler(h, Completion::Throw, value);
                    return Ok(Flow::Continue);
                }
            }
            let frame = self.pop_frame();
            self.stack.truncate(frame.base as usize);
            if let Some(generator) = frame.generator
                && !self.terminating()
            {
                let origin = self.exception_origin;
                let e = self.take_exception();
                if self.rejection_origin.is_none_or(|(v, _)| v != e) {
                    self.rejection_origin = origin.map(|o| (e, o));
                }
                match self.finish_suspendable(generator, Err(e)) {
                    Ok(v) => return Ok(self.deliver(frame.ret, v)),
                    Err(t) => {
                        if frame.ret == ReturnTo::Exit {
                            return Err(t);
                        }
                        continue;
                    }
                }
            }
            if frame.ret == ReturnTo::Exit {
                return Err(crate::Thrown);
            }
        }
    }

    /// Whether an uncatchable termination is unwinding the stack.
    pub fn terminating(&self) -> bool {
        self.termination.is_some()
    }

    // ---- generators ----

    /// `InitialYield`: package the running frame as a generator object and return it.
    fn initial_yield(&mut self) -> Flow {
        let frame = self.frames.last().expect("frame");
        let kind = frame.code.kind;
        let callee = frame.callee;
        let ret = frame.ret;
        let (suspend_kind, default_proto) = if kind == FunctionKind::AsyncGenerator {
            (
                SuspendKind::AsyncGenerator,
                self.intrinsics.async_generator_prototype,
            )
        } else {
            (SuspendKind::Generator, self.intrinsics.generator_prototype)
        };
        let proto = match self
            .heap
            .own_property(callee, PropertyKey::String(self.atoms.prototype))
        {
            Some(p) if !p.attrs.is_accessor() && p.value.is_object() => {
                p.value.as_object().unwrap_or(default_proto)
            }
            _ => default_proto,
        };
        let generator = self.new_generator_state(suspend_kind, proto);
        self.suspend_top_frame(generator);
        if let ObjectKind::Generator(g) = &mut self.heap.object_mut(generator).kind {
            g.status = GeneratorStatus::SuspendedStart;
        }
        self.deliver(ret, Value::object(generator))
    }

    /// `Yield`: suspend the generator frame and hand `{value, done: false}` to the resumer.
    fn yield_value(&mut self, v: Value) -> JsResult<Flow> {
        let generator = self
            .frames
            .last()
            .expect("frame")
            .generator
            .expect("generator frame");
        let is_async = matches!(&self.heap.object(generator).kind, ObjectKind::Generator(g) if g.kind == SuspendKind::AsyncGenerator);
        if is_async {
            let Some((mode, value)) = self.async_generator_settle_yield(generator, v) else {
                return self.yield_raw(Value::UNDEFINED);
            };
            // Another request is waiting: resume right here with it (the frame's pc is at
            // this instruction, which consumes the resumption); a `return` request's value is
            // awaited first (AsyncGeneratorUnwrapYieldResumption), with the frame suspended.
            let next = if mode == ResumeMode::Return {
                match self.promise_resolve(Value::object(self.intrinsics.promise), value) {
                    Ok(promise) => {
                        let flow = self.yield_raw(Value::UNDEFINED)?;
                        self.async_generator_await_return(generator, promise);
                        return Ok(flow);
                    }
                    Err(_) => (ResumeMode::Throw, self.catch_thrown()?),
                }
            } else {
                (mode, value)
            };
            if let ObjectKind::Generator(g) = &mut self.heap.object_mut(generator).kind {
                g.resume = Some(next);
            }
            return Ok(Flow::Continue);
        }
        let result = self.iter_result(v, false);
        self.yield_raw(result)
    }

    /// Suspend the generator frame, handing `result` to the resumer as is.
    fn yield_raw(&mut self, result: Value) -> JsResult<Flow> {
        let generator = self
            .frames
            .last()
            .expect("frame")
            .generator
            .expect("generator frame");
        let ret = self.frames.last().expect("frame").ret;
        self.suspend_top_frame(generator);
        if let ObjectKind::Generator(g) = &mut self.heap.object_mut(generator).kind {
            g.status = GeneratorStatus::SuspendedYield;
        }
        Ok(match ret {
            ReturnTo::Exit => Flow::Exit(Exit::Yield(result)),
            ReturnTo::Register(_) => self.deliver(ret, result),
        })
    }

    /// `Await`: suspend the frame until `v` settles.
    fn await_value(&mut self, v: Value) -> JsResult<Flow> {
        let frame = self.frames.last().expect("frame");
        let ret = frame.ret;
        let Some(generator) = frame.generator else {
            return Err(self.syntax_error("await is only valid in async functions"));
        };
        self.await_subscribe(generator, v)?;
        self.suspend_top_frame(generator);
        let promise = match &mut self.heap.object_mut(generator).kind {
            ObjectKind::Generator(g) => {
                g.status = GeneratorStatus::Awaiting;
                g.promise
            }
            _ => None,
        };
        let result = match promise {
            Some(p) if ret != ReturnTo::Exit => Value::object(p),
            _ => Value::UNDEFINED,
        };
        Ok(match ret {
            ReturnTo::Exit => Flow::Exit(Exit::Await(result)),
            ReturnTo::Register(_) => self.deliver(ret, result),
        })
    }

    /// One step of `yield*`.
    fn yield_delegate_step(
        &mut self,
        iter: Value,
        next: Value,
        resumption: Option<(ResumeMode, Value)>,
    ) -> JsResult<DelegateStep> {
        let (mode, received) = resumption.unwrap_or((ResumeMode::Next, Value::UNDEFINED));
        let result = match mode {
            ResumeMode::Next => self.call(next, iter, &[received])?,
            ResumeMode::Throw => {
                let throw = self.get(iter, PropertyKey::String(self.atoms.throw))?;
                if throw.is_nullish() {
                    self.iterator_close(iter)?;
                    return Err(self.no_throw_method());
                }
                self.call(throw, iter, &[received])?
            }
            ResumeMode::Return => {
                let ret = self.get(iter, PropertyKey::String(self.atoms.return_))?;
                if ret.is_nullish() {
                    return Ok(DelegateStep::Return(received));
                }
                let r = self.call(ret, iter, &[received])?;
                if !r.is_object() {
                    return Err(self.type_error("iterator result is not an object"));
                }
                let done = self.get(r, PropertyKey::String(self.atoms.done))?;
                if self.to_boolean(done) {
                    let v = self.get(r, PropertyKey::String(self.atoms.value))?;
                    return Ok(DelegateStep::Return(v));
                }
                return Ok(DelegateStep::Yield(r));
            }
        };
        if !result.is_object() {
            return Err(self.type_error("iterator result is not an object"));
        }
        let done = self.get(result, PropertyKey::String(self.atoms.done))?;
        if self.to_boolean(done) {
            let v = self.get(result, PropertyKey::String(self.atoms.value))?;
            return Ok(DelegateStep::Done(v));
        }
        Ok(DelegateStep::Yield(result))
    }

    /// One step of `yield*` in an async generator (the async branches of
    /// [the yield* evaluation](https://tc39.es/ecma262/#sec-generator-function-definitions-runtime-semantics-evaluation)):
    /// `state` says which await, if any, `resumption` answers.
    fn yield_delegate_async_step(
        &mut self,
        iter: Value,
        next: Value,
        state: Value,
        resumption: Option<(ResumeMode, Value)>,
    ) -> JsResult<AsyncDelegateStep> {
        use AsyncDelegateState as S;
        let Some((mode, received)) = resumption else {
            // First entry: received is NormalCompletion(undefined).
            let inner = self.call(next, iter, &[Value::UNDEFINED])?;
            return Ok(AsyncDelegateStep::Await(inner, S::InnerResult));
        };
        let state = match state.as_int() {
            Some(0) => S::AtYield,
            Some(1) => S::InnerResult,
            Some(2) => S::ReturnResult,
            Some(3) => S::CloseResult,
            _ => S::ReturnValue,
        };
        if state != S::AtYield && mode == ResumeMode::Throw {
            // An awaited promise rejected.
            return Err(self.throw(received));
        }
        match state {
            S::AtYield => match mode {
                ResumeMode::Next => {
                    let inner = self.call(next, iter, &[received])?;
                    Ok(AsyncDelegateStep::Await(inner, S::InnerResult))
                }
                ResumeMode::Throw => {
                    if let Some(throw) =
                        self.get_method(iter, PropertyKey::String(self.atoms.throw))?
                    {
                        let inner = self.call(throw, iter, &[received])?;
                        return Ok(AsyncDelegateStep::Await(inner, S::InnerResult));
                    }
                    // AsyncIteratorClose, then the TypeError.
                    match self.get_method(iter, PropertyKey::String(self.atoms.return_))? {
                        Some(ret) => {
                            let inner = self.call(ret, iter, &[])?;
                            Ok(AsyncDelegateStep::Await(inner, S::CloseResult))
                        }
                        None => Err(self.no_throw_method()),
                    }
                }
                ResumeMode::Return => {
                    match self.get_method(iter, PropertyKey::String(self.atoms.return_))? {
                        Some(ret) => {
                            let inner = self.call(ret, iter, &[received])?;
                            Ok(AsyncDelegateStep::Await(inner, S::ReturnResult))
                        }
                        None => Ok(AsyncDelegateStep::Await(received, S::ReturnValue)),
                    }
                }
            },
            S::InnerResult | S::ReturnResult => {
                if !received.is_object() {
                    return Err(self.type_error("iterator result is not an object"));
                }
                let done = self.get(received, PropertyKey::String(self.atoms.done))?;
                let value = self.get(received, PropertyKey::String(self.atoms.value))?;
                Ok(match (self.to_boolean(done), state) {
                    (true, S::ReturnResult) => AsyncDelegateStep::Return(value),
                    (true, _) => AsyncDelegateStep::Done(value),
                    (false, _) => AsyncDelegateStep::Yield(value),
                })
            }
            S::CloseResult => {
                if !received.is_object() {
                    return Err(self.type_error("iterator result is not an object"));
                }
                Err(self.no_throw_method())
            }
            S::ReturnValue => Ok(AsyncDelegateStep::Return(received)),
        }
    }

    fn no_throw_method(&mut self) -> crate::Thrown {
        self.type_error("The iterator does not provide a 'throw' method")
    }

    // ---- property fast paths ----

    #[inline(always)]
    fn get_named_cached(
        &self,
        receiver: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> Option<Value> {
        let obj = match receiver.as_object() {
            Some(obj) => obj,
            None => self.string_method_holder(receiver, code.sites[site as usize])?,
        };
        let o = self.heap.object(obj);
        // the two commonest entries here; the others out of line, to keep the loop small
        match code.caches[site as usize].get() {
            entry @ (InlineCache::Own { .. } | InlineCache::Proto { .. }) => {
                self.own_or_proto_read(o, code, site, entry)
            }
            InlineCache::Empty => None,
            entry => self.other_cached_read(o, code, site, entry),
        }
    }

    /// A read through an own or a prototype entry, the two commonest: the value if the
    /// entry applies to `o`.
    #[inline(always)]
    fn own_or_proto_read(
        &self,
        o: &crate::object::Object,
        code: &super::CodeBlock,
        site: u16,
        entry: InlineCache,
    ) -> Option<Value> {
        match entry {
            InlineCache::Own { shape, slot } if o.shape == shape => Some(o.slots[slot as usize]),
            InlineCache::Proto {
                shape,
                holder,
                slot,
                epoch,
            } if self.chain_entry_applies(o, shape, epoch, code.sites[site as usize]) => {
                Some(self.heap.object(holder).slots[slot as usize])
            }
            _ => None,
        }
    }

    /// A read through any other entry, or through a polymorphic site's entry for `o`.
    #[inline(never)]
    fn other_cached_read(
        &self,
        o: &crate::object::Object,
        code: &super::CodeBlock,
        site: u16,
        entry: InlineCache,
    ) -> Option<Value> {
        let entry = match entry {
            InlineCache::Polymorphic { index } => self.polymorphic[index as usize].get(o.shape)?,
            entry => entry,
        };
        self.cached_read(o, code, site, entry)
    }

    /// The value of `o`'s property at `site` if cache `entry` applies to `o` and the
    /// property is data (an accessor needs a call: [`Self::cached_accessor`]).
    #[inline(always)]
    fn cached_read(
        &self,
        o: &crate::object::Object,
        code: &super::CodeBlock,
        site: u16,
        entry: InlineCache,
    ) -> Option<Value> {
        // an exotic object shares its shape with ordinary objects of the same prototype
        // and properties, but not its virtual properties (an array's `length`), which a
        // prototype's property or an absence must not hide
        match entry {
            InlineCache::Own { .. } | InlineCache::Proto { .. } => {
                self.own_or_proto_read(o, code, site, entry)
            }
            InlineCache::DictOwn { position } => self
                .dict_entry(o, code.sites[site as usize], position)
                .filter(|p| !p.attrs.is_accessor())
                .map(|p| p.value),
            InlineCache::ProtoDict {
                shape,
                holder,
                position,
                epoch,
            } if self.chain_entry_applies(o, shape, epoch, code.sites[site as usize]) => {
                self.proto_dict_read(holder, code.sites[site as usize], position)
            }
            InlineCache::Absent { shape, epoch }
                if self.chain_entry_applies(o, shape, epoch, code.sites[site as usize]) =>
            {
                Some(Value::UNDEFINED)
            }
            _ => None,
        }
    }

    /// Where a named read from string `receiver` starts when the string itself has no
    /// such property (a method such as `charCodeAt`, not `length`): `String.prototype`,
    /// which the site then caches like any object.
    #[inline(always)]
    fn string_method_holder(&self, receiver: Value, key: PropertyKey) -> Option<ObjectId> {
        let named = matches!(key, PropertyKey::String(k) if k != self.heap.length_atom);
        (receiver.as_string().is_some() && named).then_some(self.intrinsics.string_prototype)
    }

    #[inline(never)]
    fn get_named_slow(
        &mut self,
        receiver: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> JsResult<Value> {
        let key = code.sites[site as usize];
        // `length` of an array or a string is its own and cannot be an accessor: no cache
        // entry serves it, so it is read here before any lookup.
        if key == PropertyKey::String(self.heap.length_atom) {
            if let Some(s) = receiver.as_string() {
                return Ok(Value::int(self.heap.string_len(s) as i32));
            }
            if let Some(o) = receiver.as_object()
                && let object = self.heap.object(o)
                && let ObjectKind::Array { .. } = object.kind
            {
                return Ok(Value::number(crate::object::array_length(object) as f64));
            }
        }
        let Some(obj) = receiver
            .as_object()
            .or_else(|| self.string_method_holder(receiver, key))
        else {
            if receiver.is_nullish() {
                let what = self.display(receiver);
                let k = self.key_to_display(key);
                return Err(
                    self.type_error(format!("Cannot read properties of {what} (reading '{k}')"))
                );
            }
            return self.get(receiver, key);
        };
        let cache = code.caches[site as usize].get();
        let megamorphic = matches!(cache, InlineCache::Megamorphic);
        if megamorphic && let Some(v) = self.get_data_cached(obj, key) {
            return Ok(v);
        }
        // a getter, where the site's cache (a megamorphic site: the shared one) found it
        let cache = if megamorphic {
            self.megamorphic_get.get(self.heap.object(obj).shape, key)
        } else {
            Some(cache)
        };
        if let Some(
            c @ (InlineCache::OwnGetter { .. }
            | InlineCache::ProtoGetter { .. }
            | InlineCache::DictOwn { .. }
            | InlineCache::Polymorphic { .. }),
        ) = cache
            && let Some(accessor) = self.site_accessor(obj, key, c)
        {
            let getter = self.accessor_parts(accessor).0;
            return if getter.is_undefined() {
                Ok(Value::UNDEFINED)
            } else {
                self.call(getter, receiver, &[])
            };
        }
        if !megamorphic && let Some(cache) = self.cacheable_lookup(obj, key) {
            self.fill_cache(code, site, cache);
            if let Some(v) = self.get_named_cached(receiver, code, site) {
                return Ok(v);
            }
        }
        self.get_with_receiver(obj, key, receiver)
    }

    /// The accessor a site's `cache` (one entry, or a polymorphic site's entries) says
    /// `obj`'s property `key` is, if an entry applies to `obj`.
    fn site_accessor(&self, obj: ObjectId, key: PropertyKey, cache: InlineCache) -> Option<Value> {
        match cache {
            InlineCache::Polymorphic { index } => {
                let shape = self.heap.object(obj).shape;
                let entry = self.polymorphic[index as usize].get(shape)?;
                self.cached_accessor(obj, key, entry)
            }
            entry => self.cached_accessor(obj, key, entry),
        }
    }

    /// The accessor `cache` says `obj`'s property `key` is, if the cache applies to `obj`.
    #[inline]
    fn cached_accessor(
        &self,
        obj: ObjectId,
        key: PropertyKey,
        cache: InlineCache,
    ) -> Option<Value> {
        let o = self.heap.object(obj);
        match cache {
            InlineCache::OwnGetter { shape, slot } if o.shape == shape => {
                Some(o.slots[slot as usize])
            }
            InlineCache::DictOwn { position } => self
                .dict_entry(o, key, position)
                .filter(|p| p.attrs.is_accessor())
                .map(|p| p.value),
            InlineCache::ProtoGetter {
                shape,
                holder,
                slot,
                epoch,
            } if self.chain_entry_applies(o, shape, epoch, key) => {
                Some(self.heap.object(holder).slots[slot as usize])
            }
            _ => None,
        }
    }

    /// The own property `key` of dictionary-mode `o` if its dictionary has it at
    /// `position` (and `o` has no virtual `key`).
    #[inline]
    fn dict_entry(
        &self,
        o: &crate::object::Object,
        key: PropertyKey,
        position: u32,
    ) -> Option<crate::object::Property> {
        let p = o.dict.as_ref()?.at_key(position, key)?;
        (!self.has_virtual_named(o, key)).then_some(*p)
    }

    /// The data property `key` of dictionary-mode prototype `holder`, if its dictionary
    /// still has it at `position`.
    #[inline]
    fn proto_dict_read(&self, holder: ObjectId, key: PropertyKey, position: u32) -> Option<Value> {
        self.dict_entry(self.heap.object(holder), key, position)
            .filter(|p| !p.attrs.is_accessor())
            .map(|p| p.value)
    }

    /// Whether a cache entry made for objects of `shape` from their prototype chain (at
    /// `epoch`) applies to `o`'s property `key`.
    #[inline(always)]
    fn chain_entry_applies(
        &self,
        o: &crate::object::Object,
        shape: crate::object::shape::ShapeId,
        epoch: u32,
        key: PropertyKey,
    ) -> bool {
        o.shape == shape && epoch == self.heap.proto_epoch && !self.has_virtual_named(o, key)
    }

    /// The named data property `key` of `obj`, read through the runtime's shared
    /// (shape, key) cache; None when the lookup cannot be cached (absent, an accessor,
    /// a proxy or a dictionary-mode object on the way), and then the caller does the
    /// full [[Get]].
    pub(super) fn get_data_cached(&mut self, obj: ObjectId, key: PropertyKey) -> Option<Value> {
        let shape = self.heap.object(obj).shape;
        if let Some(v) = self.megamorphic_hit(obj, shape, key) {
            return Some(v);
        }
        if let Some(cache) = self.megamorphic_get.get(shape, key)
            && self.cached_accessor(obj, key, cache).is_some()
        {
            // a getter, which the caller calls or looks up in full
            return None;
        }
        let cache = self.cacheable_lookup(obj, key)?;
        self.megamorphic_get.fill(shape, key, cache);
        self.megamorphic_hit(obj, shape, key)
    }

    fn megamorphic_hit(
        &self,
        obj: ObjectId,
        shape: crate::object::shape::ShapeId,
        key: PropertyKey,
    ) -> Option<Value> {
        let o = self.heap.object(obj);
        // as in get_named_cached, virtual properties are not in the shape
        match self.megamorphic_get.get(shape, key)? {
            InlineCache::Own { slot, .. } => Some(o.slots[slot as usize]),
            InlineCache::DictOwn { position } => self
                .dict_entry(o, key, position)
                .filter(|p| !p.attrs.is_accessor())
                .map(|p| p.value),
            InlineCache::Proto {
                holder,
                slot,
                epoch,
                ..
            } if epoch == self.heap.proto_epoch && !self.has_virtual_named(o, key) => {
                Some(self.heap.object(holder).slots[slot as usize])
            }
            InlineCache::ProtoDict {
                holder,
                position,
                epoch,
                ..
            } if epoch == self.heap.proto_epoch && !self.has_virtual_named(o, key) => {
                self.proto_dict_read(holder, key, position)
            }
            InlineCache::Absent { epoch, .. }
                if epoch == self.heap.proto_epoch && !self.has_virtual_named(o, key) =>
            {
                Some(Value::UNDEFINED)
            }
            _ => None,
        }
    }

    /// Where a named data property or a prototype's accessor lives (or that no object
    /// on the chain has it), if that can be cached. Never for an index: elements are not
    /// in shapes.
    pub(super) fn cacheable_lookup(&self, obj: ObjectId, key: PropertyKey) -> Option<InlineCache> {
        let o = self.heap.object(obj);
        if matches!(key, PropertyKey::Index(_)) || self.has_virtual_named(o, key) {
            return None;
        }
        if o.shape == crate::object::shape::ShapeId::DICTIONARY {
            let position = o.dict.as_ref()?.position(key)?;
            return Some(InlineCache::DictOwn { position });
        }
        if let Some((slot, attrs)) = self.heap.shapes.lookup(o.shape, key) {
            let shape = o.shape;
            return Some(if attrs.is_accessor() {
                InlineCache::OwnGetter { shape, slot }
            } else {
                InlineCache::Own { shape, slot }
            });
        }
        let absent = InlineCache::Absent {
            shape: o.shape,
            epoch: self.heap.proto_epoch,
        };
        let Some(mut holder) = o.proto else {
            return Some(absent);
        };
        loop {
            let h = self.heap.object(holder);
            if self.has_virtual_named(h, key) {
                return None;
            }
            // a dictionary-mode prototype that lacks the key is passed like any other:
            // adding it there changes the prototype's layout, which bumps the epoch
            if h.shape == crate::object::shape::ShapeId::DICTIONARY {
                let dict = h.dict.as_ref()?;
                if let Some(position) = dict.position(key) {
                    if dict.at_key(position, key)?.attrs.is_accessor() {
                        return None;
                    }
                    return Some(InlineCache::ProtoDict {
                        shape: o.shape,
                        holder,
                        position,
                        epoch: self.heap.proto_epoch,
                    });
                }
            } else if let Some((slot, attrs)) = self.heap.shapes.lookup(h.shape, key) {
                let (shape, epoch) = (o.shape, self.heap.proto_epoch);
                return Some(if attrs.is_accessor() {
                    InlineCache::ProtoGetter {
                        shape,
                        holder,
                        slot,
                        epoch,
                    }
                } else {
                    InlineCache::Proto {
                        shape,
                        holder,
                        slot,
                        epoch,
                    }
                });
            }
            match h.proto {
                Some(p) => holder = p,
                None => return Some(absent),
            }
        }
    }

    /// Objects whose named properties are not all in their shape (proxies, array `length`).
    #[inline]
    fn has_virtual_named(&self, o: &crate::object::Object, key: PropertyKey) -> bool {
        match o.kind {
            ObjectKind::Proxy { .. } | ObjectKind::ModuleNamespace(_) => true,
            // canonical numeric strings ("Infinity", "NaN", "-0", "1.5") are elements
            ObjectKind::TypedArray(_) => match key {
                PropertyKey::String(s) => {
                    crate::builtins::typed_array::canonical_numeric_string(&self.heap, s).is_some()
                }
                _ => false,
            },
            ObjectKind::Array { .. } | ObjectKind::String(_) => {
                key == PropertyKey::String(self.heap.length_atom)
            }
            _ => false,
        }
    }

    /// Record `entry` at a site whose cache did not serve an access. A site keeps one
    /// entry until it sees a second receiver shape, then up to [`POLYMORPHIC_ENTRIES`]
    /// (a new entry for a shape replaces the old one for it, which stopped applying); it
    /// turns megamorphic once it has been refilled [`MEGAMORPHIC_MISSES`] times.
    fn fill_cache(&mut self, code: &super::CodeBlock, site: u16, entry: InlineCache) {
        let cell = &code.caches[site as usize];
        let old = cell.get();
        match old {
            InlineCache::Megamorphic => return,
            InlineCache::Empty => return cell.set(entry),
            _ => {}
        }
        let misses = &code.misses[site as usize];
        if misses.get() >= MEGAMORPHIC_MISSES {
            return cell.set(InlineCache::Megamorphic);
        }
        misses.set(misses.get() + 1);
        match old {
            InlineCache::Polymorphic { index } => self.polymorphic[index as usize].insert(entry),
            _ if old.receiver_shape() == entry.receiver_shape() => cell.set(entry),
            _ => {
                let index = self.polymorphic.len() as u32;
                self.polymorphic.push(PolymorphicEntries::new(entry, old));
                cell.set(InlineCache::Polymorphic { index });
            }
        }
    }

    #[inline(always)]
    fn set_named_cached(
        &mut self,
        receiver: Value,
        value: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> bool {
        let Some(obj) = receiver.as_object() else {
            return false;
        };
        match code.caches[site as usize].get() {
            InlineCache::Polymorphic { index } => {
                self.polymorphic_write(obj, code.sites[site as usize], value, index)
            }
            entry => self.apply_set_cache(obj, code.sites[site as usize], value, entry),
        }
    }

    /// A write at a polymorphic site: the first of its entries that applies.
    #[inline(never)]
    fn polymorphic_write(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        value: Value,
        index: u32,
    ) -> bool {
        let shape = self.heap.object(obj).shape;
        match self.polymorphic[index as usize].get(shape) {
            Some(entry) => self.apply_set_cache(obj, key, value, entry),
            None => false,
        }
    }

    /// Store `value` in `obj` as `cache` says, if it applies to `obj`.
    #[inline(always)]
    fn apply_set_cache(
        &mut self,
        obj: ObjectId,
        key: PropertyKey,
        value: Value,
        cache: InlineCache,
    ) -> bool {
        match cache {
            InlineCache::Own { shape, slot } => {
                let o = self.heap.object_mut(obj);
                if o.shape == shape {
                    o.slots[slot as usize] = value;
                    return true;
                }
                false
            }
            InlineCache::Add { from, to, epoch } => {
                // an exotic object of the same shape may have `key` virtually (a
                // proxy has every key its handler says)
                if epoch != self.heap.proto_epoch
                    || self.has_virtual_named(self.heap.object(obj), key)
                {
                    return false;
                }
                let o = self.heap.object_mut(obj);
                if o.shape == from && o.extensible {
                    o.shape = to;
                    o.slots.push(value);
                    self.heap.note_growth(8);
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    #[inline(never)]
    fn set_named_slow(
        &mut self,
        receiver: Value,
        value: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> JsResult<()> {
        let key = code.sites[site as usize];
        if receiver.is_nullish() {
            let what = self.display(receiver);
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot set properties of {what} (setting '{k}')")));
        }
        if let Some(obj) = receiver.as_object() {
            let megamorphic = matches!(code.caches[site as usize].get(), InlineCache::Megamorphic);
            let before = self.heap.object(obj).shape;
            if megamorphic
                && let Some(cache) = self.megamorphic_set.get(before, key)
                && self.apply_set_cache(obj, key, value, cache)
            {
                return Ok(());
            }
            let o = self.heap.object(obj);
            let cacheable_own = match self.cacheable_lookup(obj, key) {
                Some(InlineCache::Own { shape, slot }) => {
                    let writable = self
                        .heap
                        .shapes
                        .lookup(shape, key)
                        .is_some_and(|(_, a)| a.writable());
                    writable.then_some(InlineCache::Own { shape, slot })
                }
                _ => None,
            };
            let can_add = cacheable_own.is_none()
                && before != crate::object::shape::ShapeId::DICTIONARY
                && o.extensible
                && !self.has_virtual_named(o, key)
                && self.chain_lacks(o.proto, key);
            let epoch = self.heap.proto_epoch;
            let ok = self.set(receiver, key, value, receiver)?;
            if !ok && code.strict {
                let k = self.key_to_display(key);
                return Err(self.type_error(format!(
                    "Cannot assign to read only property '{k}' of object"
                )));
            }
            let after = self.heap.object(obj).shape;
            let cache = cacheable_own.or_else(|| {
                (can_add
                    && ok
                    && after != before
                    && after != crate::object::shape::ShapeId::DICTIONARY
                    && epoch == self.heap.proto_epoch)
                    .then_some(InlineCache::Add {
                        from: before,
                        to: after,
                        epoch,
                    })
            });
            match cache {
                Some(c) if megamorphic => self.megamorphic_set.fill(before, key, c),
                Some(c) => self.fill_cache(code, site, c),
                None => {}
            }
            return Ok(());
        }
        let ok = self.set(receiver, key, value, receiver)?;
        if !ok && code.strict {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot create property '{k}' on primitive")));
        }
        Ok(())
    }

    /// True if no object on the chain from `proto` has `key` (and none is exotic).
    fn chain_lacks(&self, mut proto: Option<ObjectId>, key: PropertyKey) -> bool {
        while let Some(p) = proto {
            let o = self.heap.object(p);
            if o.shape == crate::object::shape::ShapeId::DICTIONARY
                || self.has_virtual_named(o, key)
                || self.heap.shapes.lookup(o.shape, key).is_some()
            {
                return false;
            }
            proto = o.proto;
        }
        true
    }

    #[inline(always)]
    fn get_element_fast(&self, o: Value, k: Value) -> Option<Value> {
        let obj = o.as_object()?;
        let i = k.as_int()?;
        let object = self.heap.object(obj);
        match &object.kind {
            ObjectKind::Arguments { .. } | ObjectKind::String(_) | ObjectKind::Proxy { .. } => {
                return None;
            }
            ObjectKind::TypedArray(t) => return crate::builtins::typed_array::fast_get(self, t, i),
            _ => {}
        }
        match &object.elements {
            Elements::Dense(v) => v
                .get(usize::try_from(i).ok()?)
                .copied()
                .filter(|v| !v.is_hole()),
            Elements::Sparse(_) => None,
        }
    }

    #[inline(never)]
    fn get_index_slow(&mut self, o: Value, k: Value) -> JsResult<Value> {
        if o.is_nullish() {
            return Err(self.nullish_read_error(o, k));
        }
        let key = self.to_property_key(k)?;
        self.get(o, key)
    }

    fn nullish_read_error(&mut self, o: Value, k: Value) -> crate::Thrown {
        let what = self.display(o);
        let key = self.display(k);
        self.type_error(format!(
            "Cannot read properties of {what} (reading '{key}')"
        ))
    }

    /// GetValue of `o[k]` in a compound assignment or update: the value and the key as
    /// converted by ToPropertyKey (after the base is checked), for the write to reuse.
    fn get_index_for_update(&mut self, o: Value, k: Value) -> JsResult<(Value, Value)> {
        if o.is_nullish() {
            return Err(self.nullish_read_error(o, k));
        }
        let key = self.to_property_key(k)?;
        let v = self.get(o, key)?;
        Ok((v, self.key_to_value(key)))
    }

    #[inline(always)]
    fn set_element_fast(&mut self, o: Value, k: Value, v: Value) -> bool {
        let (Some(obj), Some(i)) = (o.as_object(), k.as_int()) else {
            return false;
        };
        let Ok(i) = usize::try_from(i) else {
            return false;
        };
        let object = self.heap.object(obj);
        if !matches!(
            object.kind,
            ObjectKind::Array {
                length_writable: true
            } | ObjectKind::Ordinary
        ) {
            if let ObjectKind::TypedArray(_) = object.kind {
                return crate::builtins::typed_array::fast_set(self, obj, i as i32, v);
            }
            return false;
        }
        let extensible = object.extensible;
        let proto = object.proto;
        let Elements::Dense(elements) = &object.elements else {
            return false;
        };
        let len = elements.len();
        // A hole (as in `new Array(n)` being filled) is a missing property: writing it
        // adds one, which a setter or read-only element up the chain would stop.
        if i < len && (!elements[i].is_hole() || extensible && self.chain_has_no_elements(proto)) {
            if let Elements::Dense(e) = &mut self.heap.object_mut(obj).elements {
                e[i] = v;
            }
            return true;
        }
        if i == len && extensible && self.chain_has_no_elements(proto) {
            if let Elements::Dense(e) = &mut self.heap.object_mut(obj).elements {
                let before = e.capacity();
                e.push(v);
                let grown = (e.capacity() - before) * 8;
                self.heap.note_growth(grown);
            }
            return true;
        }
        false
    }

    fn chain_has_no_elements(&self, mut proto: Option<ObjectId>) -> bool {
        while let Some(p) = proto {
            let o = self.heap.object(p);
            let empty = matches!(&o.elements, Elements::Dense(e) if e.is_empty());
            if !empty
                || matches!(
                    o.kind,
                    ObjectKind::Proxy { .. }
                        | ObjectKind::String(_)
                        | ObjectKind::Arguments { .. }
                        | ObjectKind::TypedArray(_)
                )
            {
                return false;
            }
            proto = o.proto;
        }
        true
    }

    #[inline(never)]
    fn set_index_slow(&mut self, o: Value, k: Value, v: Value, strict: bool) -> JsResult<()> {
        if o.is_nullish() {
            let what = self.display(o);
            let key = self.display(k);
            return Err(
                self.type_error(format!("Cannot set properties of {what} (setting '{key}')"))
            );
        }
        let key = self.to_property_key(k)?;
        let ok = self.set(o, key, v, o)?;
        if !ok && strict {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!(
                "Cannot assign to read only property '{k}' of object"
            )));
        }
        Ok(())
    }

    /// DefineNamed through its cache: a shape that gains exactly this key as a default data
    /// property. Defining consults no prototype, so only the shape is checked.
    #[inline(always)]
    fn define_named_cached(
        &mut self,
        o: Value,
        v: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> bool {
        let Some(obj) = o.as_object() else {
            return false;
        };
        match code.caches[site as usize].get() {
            InlineCache::Polymorphic { index } => self.polymorphic_define(obj, v, index),
            entry => self.apply_define_cache(obj, v, entry),
        }
    }

    /// Add `v` to `obj` as the `Add` entry `cache` says, if it applies to `obj`.
    #[inline(always)]
    fn apply_define_cache(&mut self, obj: ObjectId, v: Value, cache: InlineCache) -> bool {
        let InlineCache::Add { from, to, .. } = cache else {
            return false;
        };
        let object = self.heap.object_mut(obj);
        if object.shape != from || !object.extensible {
            return false;
        }
        object.shape = to;
        object.slots.push(v);
        self.heap.note_growth(8);
        true
    }

    /// A definition at a polymorphic site: the first of its entries that applies.
    #[inline(never)]
    fn polymorphic_define(&mut self, obj: ObjectId, v: Value, index: u32) -> bool {
        let shape = self.heap.object(obj).shape;
        match self.polymorphic[index as usize].get(shape) {
            Some(entry) => self.apply_define_cache(obj, v, entry),
            None => false,
        }
    }

    #[inline(never)]
    fn define_named_slow(
        &mut self,
        o: Value,
        v: Value,
        code: &super::CodeBlock,
        site: u16,
    ) -> JsResult<()> {
        let key = code.sites[site as usize];
        let Some(obj) = o.as_object() else {
            return Ok(());
        };
        let before = self.heap.object(obj).shape;
        let plain = matches!(
            self.heap.object(obj).kind,
            ObjectKind::Ordinary | ObjectKind::Closure(_)
        ) && self.heap.object(obj).extensible
            && before != crate::object::shape::ShapeId::DICTIONARY
            && self.heap.shapes.lookup(before, key).is_none();
        self.define_field(o, key, v)?;
        let after = self.heap.object(obj).shape;
        if plain && after != before && after != crate::object::shape::ShapeId::DICTIONARY {
            self.fill_cache(
                code,
                site,
                InlineCache::Add {
                    from: before,
                    to: after,
                    epoch: 0,
                },
            );
        }
        Ok(())
    }

    /// CreateDataPropertyOrThrow for literals and class fields.
    fn define_field(&mut self, o: Value, key: PropertyKey, v: Value) -> JsResult<()> {
        let Some(obj) = o.as_object() else {
            return Ok(());
        };
        self.create_data_property_or_throw(obj, key, v)
    }

    fn define_method(
        &mut self,
        o: Value,
        k: Value,
        f: Value,
        kind: kiln_bytecode::MethodKind,
    ) -> JsResult<()> {
        use kiln_bytecode::MethodKind as M;
        let Some(obj) = o.as_object() else {
            return Ok(());
        };
        let key = self.to_property_key(k)?;
        if let Some(fobj) = f.as_object() {
            if let ObjectKind::Closure(c) = &mut self.heap.object_mut(fobj).kind {
                c.set_home_object(obj);
            }
            // Methods are named after their key ("get x" for accessors) unless the compiler named them.
            let prefix = match kind {
                M::ObjectGetter | M::ClassGetter => "get ",
                M::ObjectSetter | M::ClassSetter => "set ",
                _ => "",
            };
            self.set_function_name(fobj, key, prefix);
        }
        let enumerable = matches!(kind, M::ObjectMethod | M::ObjectGetter | M::ObjectSetter);
        let desc = match kind {
            M::ObjectMethod | M::ClassMethod => super::property::PropertyDescriptor {
                value: Some(f),
                writable: Some(true),
                enumerable: Some(enumerable),
                configurable: Some(true),
                ..Default::default()
            },
            M::ObjectGetter | M::ClassGetter => super::property::PropertyDescriptor {
                get: Some(f),
                enumerable: Some(enumerable),
                configurable: Some(true),
                ..Default::default()
            },
            M::ObjectSetter | M::ClassSetter => super::property::PropertyDescriptor {
                set: Some(f),
                enumerable: Some(enumerable),
                configurable: Some(true),
                ..Default::default()
            },
        };
        self.define_property_or_throw(obj, key, desc)
    }

    /// SetFunctionName when the function has no name of its own yet.
    pub fn set_function_name(&mut self, f: ObjectId, key: PropertyKey, prefix: &str) {
        let name_key = PropertyKey::String(self.atoms.name);
        let current = self.heap.own_property(f, name_key);
        let has_name = current.is_some_and(|p| {
            p.value
                .as_string()
                .is_some_and(|s| self.heap.string_len(s) > 0)
        });
        if has_name && prefix.is_empty() {
            return;
        }
        let base = match key {
            PropertyKey::Symbol(s) => match self.heap.symbol(s).description {
                Some(d) => format!("[{}]", self.heap.string_to_rust(d)),
                None => String::new(),
            },
            other => self.key_to_display(other),
        };
        let name = format!("{prefix}{base}");
        let v = self.string_value(&name);
        if let Some(p) = current {
            self.heap.put_own(
                f,
                name_key,
                Property {
                    value: v,
                    attrs: p.attrs,
                },
            );
        } else {
            self.define_builtin(f, name_key, v, Attrs::CONFIGURABLE_ONLY);
        }
    }

    fn delete_value(&mut self, o: Value, k: Value, strict: bool) -> JsResult<bool> {
        if o.is_nullish() {
            let what = self.display(o);
            return Err(self.type_error(format!("Cannot convert {what} to object")));
        }
        let obj = self.to_object(o)?;
        let key = self.to_property_key(k)?;
        let ok = self.delete_property(obj, key)?;
        if !ok && strict {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!("Cannot delete property '{k}'")));
        }
        Ok(ok)
    }

    fn home_object(&self) -> Option<ObjectId> {
        let callee = self.frames.last()?.callee;
        match &self.heap.object(callee).kind {
            ObjectKind::Closure(c) => c.home_object(),
            _ => None,
        }
    }

    /// [GetSuperBase](https://tc39.es/ecma262/#sec-getsuperbase): the [[Prototype]] of the
    /// home object, or null.
    fn super_base(&mut self) -> JsResult<Value> {
        let Some(home) = self.home_object() else {
            return Err(self.syntax_error("'super' keyword unexpected here"));
        };
        Ok(match self.get_prototype_of(home)? {
            Some(p) => Value::object(p),
            None => Value::NULL,
        })
    }

    /// The base and `this` of a super reference, checked as GetValue/PutValue check them.
    fn super_target(&mut self, base: Value, k: Value, this: Value) -> JsResult<ObjectId> {
        if this.is_hole() {
            return Err(self.reference_error(
                "Must call super constructor in derived class before accessing 'this'",
            ));
        }
        match base.as_object() {
            Some(b) => Ok(b),
            None => {
                let key = self.display(k);
                Err(self.type_error(format!(
                    "Cannot access property '{key}' of super: the home object has no prototype"
                )))
            }
        }
    }

    fn get_super(&mut self, base: Value, k: Value, this: Value) -> JsResult<Value> {
        let b = self.super_target(base, k, this)?;
        let key = self.to_property_key(k)?;
        self.get_with_receiver(b, key, this)
    }

    fn set_super(
        &mut self,
        base: Value,
        k: Value,
        v: Value,
        this: Value,
        strict: bool,
    ) -> JsResult<()> {
        let b = self.super_target(base, k, this)?;
        let key = self.to_property_key(k)?;
        if !self.set(Value::object(b), key, v, this)? && strict {
            let k = self.key_to_display(key);
            return Err(self.type_error(format!(
                "Cannot assign to read only property '{k}' of object"
            )));
        }
        Ok(())
    }

    /// `super(...)` in a derived constructor: binds `this` (the compiled code then makes it
    /// visible to closures and runs the field initialisers with `InitClassFields`).
    fn super_call(&mut self, args: &[Value]) -> JsResult<Value> {
        let frame = self.frames.last().expect("frame");
        let callee = frame.callee;
        let new_target = frame.new_target;
        let base = frame.base as usize;
        let parent = self.get_prototype_of(callee)?;
        let parent = parent.map(Value::object).unwrap_or(Value::NULL);
        if !self.is_constructor(parent) {
            return Err(self.type_error("Super constructor is not a constructor"));
        }
        let result = self.construct(parent, args, Some(new_target))?;
        if !self.stack[base].is_hole() {
            return Err(self.reference_error("Super constructor may only be called once"));
        }
        self.stack[base] = result;
        Ok(result)
    }

    // ---- private names ----

    fn private_key(&mut self, k: Value) -> PropertyKey {
        PropertyKey::Symbol(k.as_symbol().unwrap_or(self.symbols.iterator))
    }

    fn private_get(&mut self, o: Value, k: Value) -> JsResult<Value> {
        let key = self.private_key(k);
        let found = o
            .as_object()
            .and_then(|obj| self.heap.own_property(obj, key));
        match found {
            Some(p) => {
                if p.attrs.is_accessor() && self.accessor_parts(p.value).0.is_undefined() {
                    return Err(self.type_error("'#x' was defined without a getter"));
                }
                self.property_value(p, o)
            }
            None => Err(self.type_error(
                "Cannot read private member from an object whose class did not declare it",
            )),
        }
    }

    fn private_set(&mut self, o: Value, k: Value, v: Value) -> JsResult<()> {
        let key = self.private_key(k);
        let Some(obj) = o.as_object() else {
            return Err(self.type_error(
                "Cannot write private member to an object whose class did not declare it",
            ));
        };
        match self.heap.own_property(obj, key) {
            Some(p) if p.attrs.is_accessor() => {
                let setter = self.accessor_parts(p.value).1;
                if setter.is_undefined() {
                    return Err(self.type_error("'#x' was defined without a setter"));
                }
                self.call(setter, o, &[v])?;
                Ok(())
            }
            Some(p) if p.attrs.writable() => {
                self.heap.put_own(
                    obj,
                    key,
                    Property {
                        value: v,
                        attrs: p.attrs,
                    },
                );
                Ok(())
            }
            Some(_) => Err(self.type_error("Private method is not writable")),
            None => Err(self.type_error(
                "Cannot write private member to an object whose class did not declare it",
            )),
        }
    }

    /// [PrivateFieldAdd](https://tc39.es/ecma262/#sec-privatefieldadd) and
    /// [PrivateMethodOrAccessorAdd](https://tc39.es/ecma262/#sec-privatemethodoraccessoradd):
    /// `value` is the field's value, the method, or an accessor pair (`attrs` says which).
    fn private_define(&mut self, o: Value, k: Value, value: Value, attrs: Attrs) -> JsResult<()> {
        let key = self.private_key(k);
        let Some(obj) = o.as_object() else {
            return Ok(());
        };
        // 2-3. If PrivateElementFind(O, P) is not empty, throw a TypeError.
        if self.heap.own_property(obj, key).is_some() {
            return Err(
                self.type_error("Cannot initialize private member twice on the same object")
            );
        }
        // A non-extensible object takes no new private elements (its own flag: a proxy's
        // traps are not consulted).
        if !self.heap.object(obj).extensible {
            return Err(self.type_error("Cannot add a private member to a non-extensible object"));
        }
        self.heap.put_own(obj, key, Property { value, attrs });
        Ok(())
    }

    fn private_has(&mut self, o: Value, k: Value) -> JsResult<bool> {
        let Some(obj) = o.as_object() else {
            return Err(self.type_error(
                "Cannot use 'in' operator to search for a private field in a non-object",
            ));
        };
        let key = self.private_key(k);
        Ok(self.heap.own_property(obj, key).is_some())
    }

    // ---- construction helpers ----

    fn make_closure(&mut self, code: &super::CodeBlock, func: u16) -> ObjectId {
        let index = code.constants[func as usize].as_int().unwrap_or(0) as usize;
        let block = self.scripts[code.script as usize].blocks[index].clone();
        let frame = self.frames.last().expect("frame");
        let env = frame.env;
        // Arrows see the home object of the function they are written in.
        let home = if block.kind.is_arrow() {
            self.home_object()
        } else {
            None
        };
        self.new_closure(block, env, home)
    }

    fn create_class(
        &mut self,
        code: &super::CodeBlock,
        func: u16,
        heritage: Value,
    ) -> JsResult<(ObjectId, ObjectId)> {
        let (proto_parent, ctor_parent) = if heritage.is_hole() {
            (
                Some(self.intrinsics.object_prototype),
                self.intrinsics.function_prototype,
            )
        } else if heritage.is_null() {
            (None, self.intrinsics.function_prototype)
        } else {
            if !self.is_constructor(heritage) {
                return Err(self.type_error("Class extends value is not a constructor or null"));
            }
            let p = self.get(heritage, PropertyKey::String(self.atoms.prototype))?;
            if !p.is_object() && !p.is_null() {
                return Err(
                    self.type_error("Class extends value does not have valid prototype property")
                );
            }
            (
                p.as_object(),
                heritage
                    .as_object()
                    .unwrap_or(self.intrinsics.function_prototype),
            )
        };
        let index = code.constants[func as usize].as_int().unwrap_or(0) as usize;
        let block = self.scripts[code.script as usize].blocks[index].clone();
        let env = self.frames.last().expect("frame").env;
        let proto = self.heap.new_object(proto_parent, ObjectKind::Ordinary);
        let ctor = self.new_closure(block, env, Some(proto));
        self.heap.set_proto_raw(ctor, Some(ctor_parent));
        self.define_builtin(
            ctor,
            PropertyKey::String(self.atoms.prototype),
            Value::object(proto),
            Attrs::NONE,
        );
        self.define_builtin(
            proto,
            PropertyKey::String(self.atoms.constructor),
            Value::object(ctor),
            Attrs::HIDDEN,
        );
        Ok((ctor, proto))
    }

    fn create_arguments(&mut self, mapped: bool) -> ObjectId {
        let frame = self.frames.last().expect("frame");
        let (at, argc) = (frame.args_at as usize, frame.argc as usize);
        let params = frame.code.param_count as usize;
        let env = frame.env;
        let callee = frame.callee;
        let values = self.stack[at..at + argc].to_vec();
        let mapped_bits: Box<[bool]> = if mapped {
            (0..argc).map(|i| i < params).collect()
        } else {
            Box::new([])
        };
        let (shape, callee_value) = if mapped {
            (self.shapes.arguments_mapped, Value::object(callee))
        } else {
            (self.shapes.arguments_unmapped, self.shapes.strict_callee)
        };
        let kind = ObjectKind::Arguments {
            env: if mapped { env } else { None },
            mapped: mapped_bits,
        };
        let obj =
            self.heap
                .new_object_with_shape(shape, Some(self.intrinsics.object_prototype), kind);
        let iter = Value::object(self.intrinsics.array_prototype_values);
        let o = self.heap.object_mut(obj);
        o.elements = Elements::Dense(values.into());
        o.slots = crate::object::Slots::from_slice(&[Value::int(argc as i32), iter, callee_value]);
        obj
    }

    fn template_object(&mut self, code: &super::CodeBlock, idx: u16) -> ObjectId {
        if let Some(&(_, t)) = code.templates.borrow().iter().find(|(i, _)| *i == idx) {
            return t;
        }
        let kiln_bytecode::Constant::Template { cooked, raw } = &code.code.constants[idx as usize]
        else {
            return self.new_array_with_capacity(0);
        };
        let cooked_values: Vec<Value> = cooked
            .iter()
            .map(|c| match c {
                Some(units) => Value::string(self.heap.alloc_units(units)),
                None => Value::UNDEFINED,
            })
            .collect();
        let raw_values: Vec<Value> = raw
            .iter()
            .map(|units| Value::string(self.heap.alloc_units(units)))
            .collect();
        let raw_array = self.array_from_values(raw_values);
        let array = self.array_from_values(cooked_values);
        self.define_builtin(
            array,
            PropertyKey::String(self.atoms.raw),
            Value::object(raw_array),
            Attrs::NONE,
        );
        self.heap.seal_or_freeze(raw_array, true);
        self.heap.seal_or_freeze(array, true);
        code.templates.borrow_mut().push((idx, array));
        array
    }
}

/// `a == b` when it needs no conversion: numbers, identical values, and comparisons with
/// null/undefined (no object here is [[IsHTMLDDA]]). None means take the generic path.
#[inline(always)]
fn loose_equals_fast(a: Value, b: Value) -> Option<bool> {
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return Some(x == y);
    }
    if a == b {
        return Some(true);
    }
    if a.is_nullish() || b.is_nullish() {
        return Some(a.is_nullish() && b.is_nullish());
    }
    if a.is_object() && b.is_object() {
        return Some(false);
    }
    None
}

/// The outcome of one `yield*` step in an async generator.
enum AsyncDelegateStep {
    Done(Value),
    Return(Value),
    /// yield this value (not awaited again)
    Yield(Value),
    /// await this value, then step again in this state
    Await(Value, AsyncDelegateState),
}

/// Where a suspended async `yield*` stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AsyncDelegateState {
    /// at a yield (or not started)
    AtYield = 0,
    /// awaiting the result of the inner `next` or `throw`
    InnerResult = 1,
    /// awaiting the result of the inner `return`
    ReturnResult = 2,
    /// awaiting the inner `return` called because the inner iterator has no `throw`
    CloseResult = 3,
    /// awaiting the value of a `return` request the inner iterator cannot take
    ReturnValue = 4,
}

/// The outcome of one `yield*` step.
enum DelegateStep {
    Done(Value),
    Return(Value),
    Yield(Value),
}

/// Where a `SwitchInt` over `value` goes, if to a case. Out of line: the lookup is rare
/// beside the instructions `run` executes most.
#[inline(never)]
fn switch_target(code: &super::CodeBlock, table: u16, value: Value) -> Option<usize> {
    let target = code.code.switch_tables[table as usize].target(value.as_int_exact()?)?;
    Some(target as usize)
}

#[cfg(test)]
mod tests {
    use crate::Runtime;

    /// Every way the loop changes frames, with the registers of the frames involved read
    /// after each change: calls with more and fewer arguments than parameters, `new`,
    /// spread calls, a native function calling back, a throw caught frames below, a
    /// `finally` that returns, a tail call, a generator and an async function resumed
    /// from the job queue. Run under Miri too (`cargo +nightly miri test -p kiln --lib
    /// dispatch`), which checks the unchecked register and instruction reads.
    #[test]
    fn frames_change_inside_their_registers_and_code() {
        let mut rt = Runtime::new();
        let source = r#"
            "use strict";
            const log = [];
            function add(a, b, c) { return a + b + (c === undefined ? 0 : c); }
            function deep(n) { if (n === 0) throw new Error("bottom"); return deep(n - 1) + 1; }
            function Point(x) { this.x = x; }
            function* count(n) { for (let i = 0; i < n; i++) { const got = yield i; if (got) log.push(got); } }
            function early() { try { return "try"; } finally { log.push("finally"); } }
            function tail(n, acc) { return n === 0 ? acc : tail(n - 1, acc + n); }
            async function later(x) { const y = await x; log.push("await " + y); return y * 2; }
            log.push(add(1, 2), add(1, 2, 3, 4), add(...[5, 6]));
            try { deep(3); } catch (e) { log.push(e.message); }
            log.push(new Point(7).x, [1, 2, 3].map((v) => add(v, v)).join("+"));
            const g = count(3);
            log.push(g.next().value, g.next("sent").value, [...count(2)].length);
            log.push(early(), tail(4, 0));
            later(21).then((v) => log.push("then " + v));
            log;
        "#;
        rt.run_script(source, "frames.js").unwrap();
        assert_eq!(
            rt.eval("log.join()").unwrap(),
            "3,6,11,bottom,7,2+4+6,sent,0,1,2,finally,try,10,await 21,then 42"
        );
    }
}
