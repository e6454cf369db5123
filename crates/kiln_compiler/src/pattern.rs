//! Destructuring, for declarations, parameters, catch clauses, loop heads
//! and assignment expressions alike: object patterns with computed keys
//! and rest, array patterns over the iterator protocol (closing the
//! iterator when the pattern stops early or throws), and defaults.

use kiln_bytecode::{Instr, Reg};
use oxc_ast::ast::*;
use oxc_span::GetSpan;

use crate::compiler::Compiler;
use crate::error::CompileError;
use crate::expression::Place;
use crate::function::R;
use crate::typescript::{TargetReference, target_reference};

/// Something a value can be bound or assigned to.
#[derive(Clone, Copy)]
enum Target<'x, 'a> {
    Binding(&'x BindingPattern<'a>),
    Assign(&'x AssignmentTarget<'a>),
    AssignDefault(&'x AssignmentTargetMaybeDefault<'a>),
    /// shorthand `{x = 1} = o` in an assignment pattern
    Ident(&'x IdentifierReference<'a>, Option<&'x Expression<'a>>),
}

impl<'a> Compiler<'a> {
    /// Bind r[src] to a binding pattern; `init` for declarations.
    pub(crate) fn bind_pattern(&mut self, p: &BindingPattern<'a>, src: Reg, init: bool) -> R<()> {
        self.bind_target(Target::Binding(p), src, init)
    }

    /// Assign r[src] to an assignment target (destructuring assignment).
    pub(crate) fn assign_target(&mut self, t: &AssignmentTarget<'a>, src: Reg) -> R<()> {
        self.bind_target(Target::Assign(t), src, false)
    }

    /// A member-expression assignment target is evaluated before the value is fetched
    /// (`[a.b] = it`: `a` before the iterator steps): its place, if `t` is one.
    fn pre_place(&mut self, t: Target<'_, 'a>) -> R<Option<Place>> {
        let target = match t {
            Target::Assign(a) => Some(a),
            Target::AssignDefault(AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(w)) => {
                Some(&w.binding)
            }
            Target::AssignDefault(d) => d.as_assignment_target(),
            _ => None,
        };
        match target
            .and_then(|t| t.as_simple_assignment_target())
            .and_then(target_reference)
        {
            Some(TargetReference::Member(m)) => Ok(Some(self.member_place(m, &[])?)),
            _ => Ok(None),
        }
    }

    /// `bind_target` with the place `pre_place` evaluated earlier.
    fn bind_target_pre(
        &mut self,
        t: Target<'_, 'a>,
        src: Reg,
        init: bool,
        pre: Option<Place>,
    ) -> R<()> {
        let Some(place) = pre else {
            return self.bind_target(t, src, init);
        };
        let v = match t {
            Target::AssignDefault(AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(w)) => {
                self.with_default(src, &w.init, None)?
            }
            _ => src,
        };
        self.write_place(&place, v)
    }

    fn bind_target(&mut self, t: Target<'_, 'a>, src: Reg, init: bool) -> R<()> {
        let mark = self.fs.mark();
        match t {
            Target::Binding(p) => match p {
                BindingPattern::BindingIdentifier(id) => {
                    let Some(sym) = id.symbol_id.get() else {
                        return Err(CompileError::new(
                            "internal error: unresolved binding",
                            id.span.start,
                        ));
                    };
                    self.store_symbol(sym, src, init, id.span)?;
                }
                BindingPattern::AssignmentPattern(ap) => {
                    let name = match &ap.left {
                        BindingPattern::BindingIdentifier(id) => Some(id.name.to_string()),
                        _ => None,
                    };
                    let v = self.with_default(src, &ap.right, name.as_deref())?;
                    self.bind_target(Target::Binding(&ap.left), v, init)?;
                }
                BindingPattern::ObjectPattern(op) => {
                    let props: Vec<(&PropertyKey<'a>, bool, Target<'_, 'a>)> = op
                        .properties
                        .iter()
                        .map(|p| (&p.key, p.computed, Target::Binding(&p.value)))
                        .collect();
                    let rest = op.rest.as_ref().map(|r| Target::Binding(&r.argument));
                    self.object_pattern(src, &props, rest, init, op.span.start)?;
                }
                BindingPattern::ArrayPattern(ap) => {
                    let elements: Vec<Option<Target<'_, 'a>>> = ap
                        .elements
                        .iter()
                        .map(|e| e.as_ref().map(Target::Binding))
                        .collect();
                    let rest = ap.rest.as_ref().map(|r| Target::Binding(&r.argument));
                    self.array_pattern(src, &elements, rest, init, ap.span.start)?;
                }
            },
            Target::Assign(t) => match t {
                AssignmentTarget::ArrayAssignmentTarget(at) => {
                    let elements: Vec<Option<Target<'_, 'a>>> = at
                        .elements
                        .iter()
                        .map(|e| e.as_ref().map(Target::AssignDefault))
                        .collect();
                    let rest = at.rest.as_ref().map(|r| Target::Assign(&r.target));
                    self.array_pattern(src, &elements, rest, false, at.span.start)?;
                }
                AssignmentTarget::ObjectAssignmentTarget(ot) => {
                    let rest = ot.rest.as_ref().map(|r| Target::Assign(&r.target));
                    self.object_assignment_pattern(src, ot, rest)?;
                }
                _ => match t.as_simple_assignment_target().and_then(target_reference) {
                    Some(TargetReference::Identifier(id)) => {
                        let place = self.identifier_place(id)?;
                        self.write_place(&place, src)?;
                    }
                    Some(TargetReference::Member(m)) => {
                        let place = self.member_place(m, &[])?;
                        self.pos(m.span());
                        self.write_place(&place, src)?;
                    }
                    None => return self.unsupported("this assignment target", t.span()),
                },
            },
            Target::AssignDefault(d) => match d {
                AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(w) => {
                    let name = match &w.binding {
                        AssignmentTarget::AssignmentTargetIdentifier(id) => {
                            Some(id.name.to_string())
                        }
                        _ => None,
                    };
                    let v = self.with_default(src, &w.init, name.as_deref())?;
                    self.bind_target(Target::Assign(&w.binding), v, false)?;
                }
                _ => match d.as_assignment_target() {
                    Some(t) => self.bind_target(Target::Assign(t), src, false)?,
                    None => return self.unsupported("this assignment target", d.span()),
                },
            },
            Target::Ident(id, default) => {
                let v = match default {
                    Some(e) => self.with_default(src, e, Some(&id.name))?,
                    None => src,
                };
                let place = self.identifier_place(id)?;
                self.write_place(&place, v)?;
            }
        }
        self.fs.release(mark);
        Ok(())
    }

    /// A register holding r[src], or the default when r[src] is undefined.
    fn with_default(&mut self, src: Reg, default: &Expression<'a>, name: Option<&str>) -> R<Reg> {
        let v = self.fs.alloc()?;
        self.emit(Instr::Mov { dst: v, src });
        let skip = self.emit(Instr::JumpIfNotUndefined { src: v, offset: 0 });
        self.expr_named(default, v, name)?;
        self.fs.patch_here(skip);
        Ok(v)
    }

    fn object_pattern(
        &mut self,
        src: Reg,
        props: &[(&PropertyKey<'a>, bool, Target<'_, 'a>)],
        rest: Option<Target<'_, 'a>>,
        init: bool,
        offset: u32,
    ) -> R<()> {
        let obj = self.fs.alloc()?;
        self.fs.position(offset);
        self.emit(Instr::ToObject { dst: obj, src });
        let mut keys: Vec<Reg> = Vec::new();
        for (key, computed, target) in props {
            let v = self.fs.alloc()?;
            let static_name = if *computed {
                None
            } else {
                self.static_key(key)
            };
            match static_name {
                Some(name) if rest.is_none() => {
                    let site = self.fs.site_utf16(name)?;
                    self.fs.position(key.span().start);
                    self.emit(Instr::GetNamed {
                        dst: v,
                        obj: src,
                        site,
                    });
                }
                _ => {
                    let k = self.fs.alloc()?;
                    self.property_key(key, k)?;
                    self.fs.position(key.span().start);
                    self.emit(Instr::GetIndex {
                        dst: v,
                        obj: src,
                        key: k,
                    });
                    keys.push(k);
                }
            }
            self.bind_target(*target, v, init)?;
        }
        if let Some(rest) = rest {
            let excluded = self.fs.alloc()?;
            self.emit(Instr::NewArray {
                dst: excluded,
                capacity: keys.len().min(u16::MAX as usize) as u16,
            });
            for k in &keys {
                self.emit(Instr::ArrayPush {
                    arr: excluded,
                    src: *k,
                });
            }
            let r = self.fs.alloc()?;
            self.emit(Instr::NewObject {
                dst: r,
                capacity: 0,
            });
            self.emit(Instr::CopyDataPropertiesExcept {
                dst: r,
                src,
                excluded,
            });
            self.bind_target(rest, r, init)?;
        }
        Ok(())
    }

    fn object_assignment_pattern(
        &mut self,
        src: Reg,
        ot: &ObjectAssignmentTarget<'a>,
        rest: Option<Target<'_, 'a>>,
    ) -> R<()> {
        let obj = self.fs.alloc()?;
        self.fs.position(ot.span.start);
        self.emit(Instr::ToObject { dst: obj, src });
        let mut keys: Vec<Reg> = Vec::new();
        for p in &ot.properties {
            let v = self.fs.alloc()?;
            let k = self.fs.alloc()?;
            match p {
                AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(id) => {
                    self.load_str(k, &id.binding.name)?;
                    self.fs.position(id.span.start);
                    self.emit(Instr::GetIndex {
                        dst: v,
                        obj: src,
                        key: k,
                    });
                    self.bind_target(Target::Ident(&id.binding, id.init.as_ref()), v, false)?;
                }
                AssignmentTargetProperty::AssignmentTargetPropertyProperty(pp) => {
                    self.property_key(&pp.name, k)?;
                    let target = Target::AssignDefault(&pp.binding);
                    let pre = self.pre_place(target)?;
                    self.fs.position(pp.span.start);
                    self.emit(Instr::GetIndex {
                        dst: v,
                        obj: src,
                        key: k,
                    });
                    self.bind_target_pre(target, v, false, pre)?;
                }
            }
            keys.push(k);
        }
        if let Some(rest) = rest {
            let excluded = self.fs.alloc()?;
            self.emit(Instr::NewArray {
                dst: excluded,
                capacity: keys.len().min(u16::MAX as usize) as u16,
            });
            for k in &keys {
                self.emit(Instr::ArrayPush {
                    arr: excluded,
                    src: *k,
                });
            }
            let r = self.fs.alloc()?;
            self.emit(Instr::NewObject {
                dst: r,
                capacity: 0,
            });
            self.emit(Instr::CopyDataPropertiesExcept {
                dst: r,
                src,
                excluded,
            });
            self.bind_target(rest, r, false)?;
        }
        Ok(())
    }

    fn array_pattern(
        &mut self,
        src: Reg,
        elements: &[Option<Target<'_, 'a>>],
        rest: Option<Target<'_, 'a>>,
        init: bool,
        offset: u32,
    ) -> R<()> {
        let iter = self.fs.alloc_n(2)?;
        self.fs.position(offset);
        self.emit(Instr::GetIterator { iter, src });
        // pair = (value, done); done starts false.
        let pair = self.fs.alloc_n(2)?;
        let done = pair + 1;
        self.emit(Instr::LoadFalse { dst: done });
        let depth = self.env_depth();
        let start = self.fs.pc();
        for el in elements {
            let value = self.fs.alloc()?;
            let pre = match el {
                Some(target) => self.pre_place(*target)?,
                None => None,
            };
            self.step_iterator(iter, pair, value);
            if let Some(target) = el {
                self.bind_target_pre(*target, value, init, pre)?;
            }
        }
        if let Some(rest) = rest {
            let pre = self.pre_place(rest)?;
            let arr = self.fs.alloc()?;
            self.emit(Instr::NewArray {
                dst: arr,
                capacity: 0,
            });
            let top = self.fs.pc();
            let exit1 = self.emit(Instr::JumpIfTrue {
                src: done,
                offset: 0,
            });
            self.emit(Instr::LoadTrue { dst: done });
            self.emit(Instr::IteratorNext { dst: pair, iter });
            let exit2 = self.emit(Instr::JumpIfTrue {
                src: done,
                offset: 0,
            });
            self.emit(Instr::ArrayPush { arr, src: pair });
            self.fs.loop_to(top);
            self.fs.patch_here(exit1);
            self.fs.patch_here(exit2);
            self.bind_target_pre(rest, arr, init, pre)?;
        }
        let end = self.fs.pc();
        let skip_close = self.emit(Instr::JumpIfTrue {
            src: done,
            offset: 0,
        });
        self.emit(Instr::IteratorClose { iter });
        let over_handler = self.fs.jump();
        // A throw while binding (or a generator's `return()` at a `yield` in a default
        // value) closes the iterator unless it is exhausted or the throw came from the
        // iterator itself (done was set first).
        self.close_iterator_on_abrupt_exit((start, end), depth, iter, false, Some(done))?;
        self.fs.patch_here(skip_close);
        self.fs.patch_here(over_handler);
        Ok(())
    }

    /// r[value] = the next value, or undefined once the iterator is done.
    fn step_iterator(&mut self, iter: Reg, pair: Reg, value: Reg) {
        let done = pair + 1;
        self.emit(Instr::LoadUndefined { dst: value });
        let skip = self.emit(Instr::JumpIfTrue {
            src: done,
            offset: 0,
        });
        self.emit(Instr::LoadTrue { dst: done });
        self.emit(Instr::IteratorNext { dst: pair, iter });
        let finished = self.emit(Instr::JumpIfTrue {
            src: done,
            offset: 0,
        });
        self.emit(Instr::Mov {
            dst: value,
            src: pair,
        });
        self.fs.patch_here(skip);
        self.fs.patch_here(finished);
    }
}
