//! Classes: constructor and prototype creation, methods and accessors,
//! computed keys evaluated once in order, private names, instance field
//! initialisers (a synthesized initializer closure run by the VM at
//! construction) and static fields and blocks (synthesized closures called
//! once with `this` = the constructor).

use rustc_hash::FxHashMap;

use kiln_bytecode::{FunctionKind, Instr, MethodKind, Reg};
use oxc_ast::ast::*;
use oxc_span::Span;

use crate::compiler::{ClassCtx, Compiler};
use crate::function::{Loc, R, utf16};
use crate::scope::ContextKey;
use crate::typescript::runtime_elements;

/// How a field's key is known to its initializer.
enum FieldKey {
    Named(Vec<u16>),
    /// computed at definition time into this class-environment slot
    Computed(u16),
    Private(String),
}

struct Field<'x, 'a> {
    key: FieldKey,
    value: Option<&'x Expression<'a>>,
    name: Vec<u16>,
}

enum StaticElement<'x, 'a> {
    Field(Field<'x, 'a>),
    Block(&'x StaticBlock<'a>),
}

impl<'a> Compiler<'a> {
    /// Compile a class into r[dst]; declarations also initialise their binding.
    pub(crate) fn class(&mut self, c: &Class<'a>, dst: Reg, name: Option<Vec<u16>>) -> R<()> {
        self.enter(c.span)?;
        if !c.decorators.is_empty() {
            return self.unsupported("decorators", c.span);
        }
        let saved_strict = self.fs.strict;
        self.fs.strict = true;
        let result = self.class_inner(c, dst, name);
        self.fs.strict = saved_strict;
        self.leave();
        result
    }

    fn class_inner(&mut self, c: &Class<'a>, dst: Reg, name: Option<Vec<u16>>) -> R<()> {
        let class_name =
            c.id.as_ref()
                .map(|id| utf16(&id.name))
                .or(name)
                .unwrap_or_default();
        let mark = self.fs.mark();
        let scope = c.scope_id.get();
        let scope_pushed = self.enter_scope(scope)?;

        // Slots of the class environment: private names, private methods, computed field keys.
        let mut private_names: Vec<String> = Vec::new();
        let mut slot_count: u16 = 0;
        for el in runtime_elements(&c.body) {
            let key = match el {
                ClassElement::MethodDefinition(m) => Some(&m.key),
                ClassElement::PropertyDefinition(p) => Some(&p.key),
                ClassElement::AccessorProperty(a) => {
                    return self.unsupported("accessor fields", a.span);
                }
                ClassElement::StaticBlock(_) | ClassElement::TSIndexSignature(_) => None,
            };
            if let Some(PropertyKey::PrivateIdentifier(p)) = key
                && !private_names.iter().any(|n| n == p.name.as_str())
            {
                private_names.push(p.name.to_string());
            }
        }
        let extra_slots: u16 = runtime_elements(&c.body)
            .map(|el| match el {
                ClassElement::MethodDefinition(m)
                    if matches!(m.key, PropertyKey::PrivateIdentifier(_)) && !m.r#static =>
                {
                    1
                }
                ClassElement::PropertyDefinition(p) if p.computed => 1,
                _ => 0,
            })
            .sum();
        // The class's own name inside the body: an immutable binding, uninitialised until
        // the class exists.
        let inner_sym = c.id.as_ref().and_then(|id| id.symbol_id.get());
        let size = private_names.len() as u16 + extra_slots + u16::from(inner_sym.is_some());
        let class_env = if size > 0 {
            Some(self.push_env(size))
        } else {
            None
        };
        let mut names = FxHashMap::default();
        if let Some(env) = class_env {
            let t = self.fs.alloc()?;
            for (slot, n) in private_names.iter().enumerate() {
                let desc = self.fs.str(&format!("#{n}"))?;
                self.emit(Instr::NewPrivateName { dst: t, desc });
                self.set_env(t, env, slot as u16, c.span)?;
                names.insert(
                    n.clone(),
                    Loc::Env {
                        env,
                        slot: slot as u16,
                    },
                );
            }
            slot_count = private_names.len() as u16;
        }
        self.classes.push(ClassCtx { names });
        let inner_loc = match (class_env, inner_sym) {
            (Some(env), Some(sym)) => {
                let slot = size - 1;
                self.name_slot(env, sym, slot);
                let loc = Loc::Env { env, slot };
                self.inner_class_names.insert(sym, loc);
                Some(loc)
            }
            _ => None,
        };

        // Heritage and constructor.
        let heritage = self.fs.alloc()?;
        match &c.heritage {
            Some(h) => self.expr(&h.expression, heritage)?,
            None => {
                self.emit(Instr::LoadHole { dst: heritage });
            }
        }
        let derived = c.heritage.is_some();
        let ctor = runtime_elements(&c.body).find_map(|el| match el {
            ClassElement::MethodDefinition(m) if m.kind == MethodDefinitionKind::Constructor => {
                Some(m)
            }
            _ => None,
        });
        let ctor_kind = if derived {
            FunctionKind::DerivedConstructor
        } else {
            FunctionKind::ClassConstructor
        };
        let ctor_index = match ctor {
            Some(m) => self.compile_function(&m.value, class_name.clone(), Some(ctor_kind))?,
            None => self.default_constructor(ctor_kind, class_name.clone(), c.span)?,
        };
        if let Some(Some(code)) = self.functions.get_mut(ctor_index as usize) {
            code.source_start = c.span.start;
            code.source_end = c.span.end;
        }
        let pair = self.fs.alloc_n(2)?;
        let (class, proto) = (pair, pair + 1);
        let func = self
            .fs
            .constant(kiln_bytecode::Constant::Function(ctor_index))?;
        self.pos(c.span);
        self.emit(Instr::CreateClass {
            dst: class,
            func,
            heritage,
        });

        // Methods and computed keys, in order.
        let mut instance_fields: Vec<Field<'_, 'a>> = Vec::new();
        let mut private_methods: Vec<(String, Option<u16>, Option<u16>, bool)> = Vec::new();
        let mut statics: Vec<StaticElement<'_, 'a>> = Vec::new();
        let mut static_private: Vec<(String, Reg, MethodDefinitionKind)> = Vec::new();
        for el in runtime_elements(&c.body) {
            match el {
                ClassElement::MethodDefinition(m)
                    if m.kind == MethodDefinitionKind::Constructor => {}
                ClassElement::MethodDefinition(m) => {
                    if !m.decorators.is_empty() {
                        return self.unsupported("decorators", m.span);
                    }
                    let home = if m.r#static { class } else { proto };
                    let (prefix, kind) = match m.kind {
                        MethodDefinitionKind::Get => ("get ", MethodKind::ClassGetter),
                        MethodDefinitionKind::Set => ("set ", MethodKind::ClassSetter),
                        _ => ("", MethodKind::ClassMethod),
                    };
                    if let PropertyKey::PrivateIdentifier(p) = &m.key {
                        let fname = utf16(&format!("{prefix}#{}", p.name));
                        let index =
                            self.compile_function(&m.value, fname, Some(FunctionKind::Method))?;
                        self.set_source_start(index, self.method_source_start(m.span, m.r#static));
                        let f = self.fs.alloc()?;
                        self.emit_closure(f, index)?;
                        self.emit(Instr::SetHomeObject { func: f, obj: home });
                        if m.r#static {
                            static_private.push((p.name.to_string(), f, m.kind));
                        } else if let Some(env) = class_env {
                            let slot = slot_count;
                            slot_count += 1;
                            self.set_env(f, env, slot, m.span)?;
                            let entry =
                                match private_methods.iter_mut().find(|e| e.0 == p.name.as_str()) {
                                    Some(e) => e,
                                    None => {
                                        private_methods.push((
                                            p.name.to_string(),
                                            None,
                                            None,
                                            m.kind != MethodDefinitionKind::Method,
                                        ));
                                        private_methods.last_mut().unwrap_or_else(|| unreachable!())
                                    }
                                };
                            // (name, method-or-getter slot, setter slot)
                            if m.kind == MethodDefinitionKind::Set {
                                entry.2 = Some(slot);
                            } else {
                                entry.1 = Some(slot);
                            }
                        }
                        continue;
                    }
                    let key = self.fs.alloc()?;
                    self.property_key(&m.key, key)?;
                    let base_name = if m.computed {
                        None
                    } else {
                        self.static_key(&m.key)
                    };
                    let fname = match base_name {
                        Some(n) => {
                            let mut v = utf16(prefix);
                            v.extend(n);
                            v
                        }
                        None => utf16(prefix.trim_end()),
                    };
                    let index =
                        self.compile_function(&m.value, fname, Some(FunctionKind::Method))?;
                    self.set_source_start(index, self.method_source_start(m.span, m.r#static));
                    let f = self.fs.alloc()?;
                    self.emit_closure(f, index)?;
                    self.emit(Instr::DefineMethod {
                        obj: home,
                        key,
                        func: f,
                        kind,
                    });
                }
                ClassElement::PropertyDefinition(p) => {
                    if !p.decorators.is_empty() {
                        return self.unsupported("decorators", p.span);
                    }
                    let (key, name) = match &p.key {
                        PropertyKey::PrivateIdentifier(id) => (
                            FieldKey::Private(id.name.to_string()),
                            utf16(&format!("#{}", id.name)),
                        ),
                        k if !p.computed => {
                            let n = self.static_key(k).unwrap_or_default();
                            (FieldKey::Named(n.clone()), n)
                        }
                        k => {
                            let t = self.fs.alloc()?;
                            self.property_key(k, t)?;
                            let slot = slot_count;
                            slot_count += 1;
                            if let Some(env) = class_env {
                                self.set_env(t, env, slot, p.span)?;
                            }
                            (FieldKey::Computed(slot), Vec::new())
                        }
                    };
                    let field = Field {
                        key,
                        value: p.value.as_ref(),
                        name,
                    };
                    if p.r#static {
                        statics.push(StaticElement::Field(field));
                    } else {
                        instance_fields.push(field);
                    }
                }
                ClassElement::StaticBlock(b) => statics.push(StaticElement::Block(b)),
                _ => {}
            }
        }

        // The inner class binding is initialised before static elements run.
        if let Some(loc) = inner_loc {
            self.store_loc(loc, class, c.span)?;
        }

        // Instance fields and private methods: the initializer closure.
        if !instance_fields.is_empty() || !private_methods.is_empty() {
            let index = self.field_initializer(
                c.scope_id.get(),
                &instance_fields,
                &private_methods,
                class_env,
                false,
                c.span,
            )?;
            let init = self.fs.alloc()?;
            self.emit_closure(init, index)?;
            self.emit(Instr::SetHomeObject {
                func: init,
                obj: proto,
            });
            self.emit(Instr::SetClassFields { class, init });
        }

        // Static private methods go straight onto the constructor.
        for (name, f, kind) in &static_private {
            let key = self.private_key(name, c.span)?;
            match kind {
                MethodDefinitionKind::Get | MethodDefinitionKind::Set => {
                    let funcs = self.fs.alloc_n(2)?;
                    let (g, s) = if *kind == MethodDefinitionKind::Get {
                        (funcs, funcs + 1)
                    } else {
                        (funcs + 1, funcs)
                    };
                    self.emit(Instr::Mov { dst: g, src: *f });
                    // A matching accessor of the other kind, if any.
                    let other = static_private.iter().find(|(n, _, k)| {
                        n == name
                            && k != kind
                            && matches!(k, MethodDefinitionKind::Get | MethodDefinitionKind::Set)
                    });
                    match other {
                        Some((_, of, _)) => {
                            if *kind == MethodDefinitionKind::Set {
                                continue;
                            }
                            self.emit(Instr::Mov { dst: s, src: *of });
                        }
                        None => {
                            self.emit(Instr::LoadUndefined { dst: s });
                        }
                    }
                    self.emit(Instr::DefinePrivateAccessor {
                        obj: class,
                        key,
                        funcs,
                    });
                }
                _ => {
                    self.emit(Instr::DefinePrivate {
                        obj: class,
                        key,
                        src: *f,
                        method: true,
                    });
                }
            }
        }

        // Static fields and blocks, in order.
        let mut run: Vec<Field<'_, 'a>> = Vec::new();
        let flush = |this: &mut Self, run: &mut Vec<Field<'_, 'a>>| -> R<()> {
            if run.is_empty() {
                return Ok(());
            }
            let index =
                this.field_initializer(c.scope_id.get(), run, &[], class_env, true, c.span)?;
            run.clear();
            this.call_static_initializer(index, class)
        };
        for el in statics {
            match el {
                StaticElement::Field(f) => run.push(f),
                StaticElement::Block(b) => {
                    flush(self, &mut run)?;
                    let index = self.static_block(b)?;
                    self.call_static_initializer(index, class)?;
                }
            }
        }
        flush(self, &mut run)?;

        // The outer binding (declarations) is initialised once the class is complete.
        if let Some(sym) = inner_sym {
            self.inner_class_names.remove(&sym);
            if let Some(id) = &c.id {
                self.store_symbol(sym, class, true, id.span)?;
            }
        }
        self.emit(Instr::Mov { dst, src: class });
        self.classes.pop();
        if class_env.is_some() {
            self.pop_env();
        }
        self.leave_scope(scope_pushed);
        self.fs.release(mark);
        Ok(())
    }

    fn call_static_initializer(&mut self, index: u32, class: Reg) -> R<()> {
        let func = self.fs.alloc()?;
        self.emit_closure(func, index)?;
        self.emit(Instr::SetHomeObject { func, obj: class });
        let base = self.fs.alloc()?;
        self.emit(Instr::Mov {
            dst: base,
            src: class,
        });
        self.emit(Instr::Call {
            dst: base,
            func,
            args: base,
            argc: 0,
        });
        self.fs.release(func as u32);
        Ok(())
    }

    fn default_constructor(&mut self, kind: FunctionKind, name: Vec<u16>, span: Span) -> R<u32> {
        self.begin_function(kind, true, None, None, None)?;
        if kind == FunctionKind::DerivedConstructor {
            // constructor(...args) { super(...args); }, without iterating args.
            let r = self.fs.alloc()?;
            self.emit(Instr::SuperCallForward { dst: r });
        }
        self.emit(Instr::InitClassFields);
        self.end_function(name, 0, 0, span)
    }

    fn static_block(&mut self, b: &StaticBlock<'a>) -> R<u32> {
        let scope = b.scope_id.get();
        self.begin_function(
            FunctionKind::Method,
            true,
            scope,
            scope.map(ContextKey::Scope),
            None,
        )?;
        self.function_body_statements(&b.body)?;
        self.end_function(Vec::new(), 0, 0, b.span)
    }

    /// A closure defining `fields` (and private methods) on `this`.
    fn field_initializer(
        &mut self,
        class_scope: Option<oxc_syntax::scope::ScopeId>,
        fields: &[Field<'_, 'a>],
        private_methods: &[(String, Option<u16>, Option<u16>, bool)],
        class_env: Option<u32>,
        is_static: bool,
        span: Span,
    ) -> R<u32> {
        let key = class_scope.map(|class| ContextKey::Fields { class, is_static });
        self.begin_function(FunctionKind::Method, true, None, key, None)?;
        self.fs.in_field_initializer = true;
        let this = self.fs.alloc()?;
        self.emit(Instr::LoadThis { dst: this });
        for (name, first, second, is_accessor) in private_methods {
            let key = self.private_key(name, span)?;
            let env = class_env.unwrap_or_default();
            match (first, second) {
                (Some(slot), _) if !*is_accessor => {
                    let f = self.fs.alloc()?;
                    self.get_env(f, env, *slot, None, span)?;
                    self.emit(Instr::DefinePrivate {
                        obj: this,
                        key,
                        src: f,
                        method: true,
                    });
                }
                _ => {
                    let funcs = self.fs.alloc_n(2)?;
                    for (reg, slot) in [(funcs, first), (funcs + 1, second)] {
                        match slot {
                            Some(s) => self.get_env(reg, env, *s, None, span)?,
                            None => {
                                self.emit(Instr::LoadUndefined { dst: reg });
                            }
                        }
                    }
                    self.emit(Instr::DefinePrivateAccessor {
                        obj: this,
                        key,
                        funcs,
                    });
                }
            }
        }
        for field in fields {
            let mark = self.fs.mark();
            let v = self.fs.alloc()?;
            match field.value {
                Some(e) => {
                    let name = String::from_utf16_lossy(&field.name);
                    self.expr_named(e, v, Some(&name))?;
                }
                None => {
                    self.emit(Instr::LoadUndefined { dst: v });
                }
            }
            match &field.key {
                FieldKey::Named(n) => {
                    let site = self.fs.site_utf16(n.clone())?;
                    self.emit(Instr::DefineNamed {
                        obj: this,
                        src: v,
                        site,
                    });
                }
                FieldKey::Computed(slot) => {
                    let k = self.fs.alloc()?;
                    self.get_env(k, class_env.unwrap_or_default(), *slot, None, span)?;
                    self.emit(Instr::DefineIndex {
                        obj: this,
                        key: k,
                        src: v,
                    });
                }
                FieldKey::Private(n) => {
                    let k = self.private_key(n, span)?;
                    self.emit(Instr::DefinePrivate {
                        obj: this,
                        key: k,
                        src: v,
                        method: false,
                    });
                }
            }
            self.fs.release(mark);
        }
        self.end_function(Vec::new(), 0, 0, span)
    }
}
