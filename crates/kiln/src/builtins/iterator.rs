//! Iteration: the iterator protocol operations the interpreter and the
//! built-ins share, `%IteratorPrototype%`, array iterators and `for-in`
//! key enumeration ([spec](https://tc39.es/ecma262/#sec-iteration)).

use super::{define_symbol_method, define_to_string_tag};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::{Elements, ForInState, IterationKind, ObjectKind, PropertyKey, array_length};
use crate::value::Value;

pub fn init(vm: &mut Vm) {
    let iterator_proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.iterator_prototype = iterator_proto;
    define_symbol_method(
        vm,
        iterator_proto,
        vm.symbols.iterator,
        "[Symbol.iterator]",
        return_this,
        0,
    );
    define_symbol_method(
        vm,
        iterator_proto,
        vm.symbols.dispose,
        "[Symbol.dispose]",
        iterator_dispose,
        0,
    );
    let async_proto = vm
        .heap
        .new_object(Some(vm.intrinsics.object_prototype), ObjectKind::Ordinary);
    vm.intrinsics.async_iterator_prototype = async_proto;
    define_symbol_method(
        vm,
        async_proto,
        vm.symbols.async_iterator,
        "[Symbol.asyncIterator]",
        return_this,
        0,
    );
    define_symbol_method(
        vm,
        async_proto,
        vm.symbols.async_dispose,
        "[Symbol.asyncDispose]",
        async_iterator_dispose,
        0,
    );
    let array_iter = vm
        .heap
        .new_object(Some(iterator_proto), ObjectKind::Ordinary);
    vm.intrinsics.array_iterator_prototype = array_iter;
    vm.intrinsics.array_iterator_next =
        vm.define_native(array_iter, "next", array_iterator_next, 0);
    define_to_string_tag(vm, array_iter, "Array Iterator");
}

pub fn return_this(_vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    Ok(this)
}

/// [%IteratorPrototype% \[ @@dispose \]](https://tc39.es/proposal-explicit-resource-management/#sec-%iteratorprototype%-@@dispose):
/// call `return` if there is one.
fn iterator_dispose(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // 2. Let return be ? GetMethod(O, "return").
    let key = PropertyKey::String(vm.atoms.return_);
    // 3. If return is not undefined, perform ? Call(return, O, « »).
    if let Some(ret) = vm.get_method(this, key)? {
        vm.call(ret, this, &[])?;
    }
    Ok(Value::UNDEFINED)
}

/// [%AsyncIteratorPrototype% \[ @@asyncDispose \]](https://tc39.es/proposal-explicit-resource-management/#sec-%asynciteratorprototype%-@@asyncdispose):
/// a promise of `return()` settling, fulfilled with undefined.
fn async_iterator_dispose(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // 2. Let promiseCapability be ! NewPromiseCapability(%Promise%).
    let promise = vm.new_promise();
    vm.roots.push(Value::object(promise));
    match return_undefined_promise(vm, this) {
        // 6.c-g. resultWrapper.then(() => undefined) settles the promise.
        Ok(Some(wrapper)) => {
            let (resolve, reject) = vm.create_resolving_functions(promise);
            let capability = super::promise::Capability {
                promise: Value::object(promise),
                resolve,
                reject,
            };
            let unwrap = super::promise::value_thunk_function(vm, Value::UNDEFINED);
            vm.perform_then(wrapper, unwrap, Value::UNDEFINED, Some(capability));
        }
        // 5.a. No `return` method: resolve with undefined.
        Ok(None) => vm.resolve_promise(promise, Value::UNDEFINED)?,
        // IfAbruptRejectPromise.
        Err(_) => {
            let e = vm.catch_thrown()?;
            vm.reject_promise(promise, e);
        }
    }
    Ok(Value::object(promise))
}

/// Steps 3-6.c of %AsyncIteratorPrototype% [ @@asyncDispose ]: PromiseResolve of
/// `this.return()`, or None without a `return` method.
fn return_undefined_promise(vm: &mut Vm, this: Value) -> JsResult<Option<ObjectId>> {
    let key = PropertyKey::String(vm.atoms.return_);
    let Some(ret) = vm.get_method(this, key)? else {
        return Ok(None);
    };
    let result = vm.call(ret, this, &[])?;
    let promise = Value::object(vm.intrinsics.promise);
    Ok(Some(vm.promise_resolve(promise, result)?))
}

/// %ArrayIteratorPrototype%.next
fn array_iterator_next(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let Some(it) = this.as_object() else {
        return Err(vm.type_error("next called on incompatible receiver"));
    };
    let ObjectKind::ArrayIterator {
        target,
        index,
        kind,
    } = vm.heap.object(it).kind
    else {
        return Err(vm.type_error("next called on incompatible receiver"));
    };
    if target.is_undefined() {
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    let len = match target
        .as_object()
        .and_then(|o| super::typed_array::ta_data(vm, o))
    {
        Some(t) => match super::typed_array::length_of(vm, &t) {
            Some(len) => len as f64,
            None => {
                return Err(vm.type_error("Cannot iterate a detached or out-of-bounds typed array"));
            }
        },
        None => vm.length_of_array_like(target)?,
    };
    if index as f64 >= len {
        if let ObjectKind::ArrayIterator { target, .. } = &mut vm.heap.object_mut(it).kind {
            *target = Value::UNDEFINED;
        }
        return Ok(vm.iter_result(Value::UNDEFINED, true));
    }
    if let ObjectKind::ArrayIterator { index: i, .. } = &mut vm.heap.object_mut(it).kind {
        *i += 1;
    }
    let value = match kind {
        IterationKind::Keys => Value::number(index as f64),
        IterationKind::Values => vm.get(target, PropertyKey::Index(index))?,
        IterationKind::Entries => {
            let v = vm.get(target, PropertyKey::Index(index))?;
            Value::object(vm.array_from_values(vec![Value::number(index as f64), v]))
        }
    };
    Ok(vm.iter_result(value, false))
}

/// Group `items` by the key `callback` returns (Object.groupBy / Map.groupBy).
pub fn group_by(
    vm: &mut Vm,
    items: Value,
    callback: Value,
    property_keys: bool,
) -> JsResult<Vec<(Value, Vec<Value>)>> {
    if items.is_nullish() {
        return Err(vm.type_error("groupBy called on null or undefined"));
    }
    if !vm.is_callable(callback) {
        return Err(vm.type_error("groupBy callback is not a function"));
    }
    let (iter, next) = vm.get_iterator(items)?;
    let mark = vm.roots.len();
    vm.roots.push(iter);
    let mut groups: Vec<(Value, Vec<Value>)> = Vec::new();
    let mut k = 0u64;
    loop {
        let (value, done) = vm.iterator_step(iter, next)?;
        if done {
            break;
        }
        vm.roots.push(value);
        let key = match vm
            .call(
                callback,
                Value::UNDEFINED,
                &[value, Value::number(k as f64)],
            )
            .and_then(|key| {
                if property_keys {
                    let pk = vm.to_property_key(key)?;
                    Ok(vm.key_to_value(pk))
                } else if key.as_number() == Some(0.0) {
                    Ok(Value::int(0))
                } else {
                    Ok(key)
                }
            }) {
            Ok(key) => key,
            Err(t) => return Err(vm.iterator_close_after_throw(iter, t)),
        };
        vm.roots.push(key);
        let mut found = false;
        for (gk, values) in groups.iter_mut() {
            let gk = *gk;
            if vm.same_value(gk, key) {
                values.push(value);
                found = true;
                break;
            }
        }
        if !found {
            groups.push((key, vec![value]));
        }
        k += 1;
    }
    vm.roots.truncate(mark);
    Ok(groups)
}

impl Vm {
    /// `{ value, done }`
    pub fn iter_result(&mut self, value: Value, done: bool) -> Value {
        let proto = self.intrinsics.object_prototype;
        let slots = [value, Value::bool(done)];
        Value::object(
            self.heap
                .new_object_with_slots(self.shapes.iter_result, proto, &slots),
        )
    }

    /// A new array iterator over `target`.
    pub fn new_array_iterator(&mut self, target: Value, kind: IterationKind) -> Value {
        let proto = self.intrinsics.array_iterator_prototype;
        Value::object(self.heap.new_object(
            Some(proto),
            ObjectKind::ArrayIterator {
                target,
                index: 0,
                kind,
            },
        ))
    }

    /// [GetIterator](https://tc39.es/ecma262/#sec-getiterator)(v, sync): the iterator and its `next`.
    pub fn get_iterator(&mut self, v: Value) -> JsResult<(Value, Value)> {
        let method = self.get(v, PropertyKey::Symbol(self.symbols.iterator))?;
        if !self.is_callable(method) {
            let what = self.display(v);
            return Err(self.type_error(format!("{what} is not iterable")));
        }
        self.get_iterator_from_method(v, method)
    }

    pub fn get_iterator_from_method(
        &mut self,
        v: Value,
        method: Value,
    ) -> JsResult<(Value, Value)> {
        let iter = self.call(method, v, &[])?;
        if !iter.is_object() {
            return Err(self.type_error("Result of the Symbol.iterator method is not an object"));
        }
        let next = self.get(iter, PropertyKey::String(self.atoms.next))?;
        Ok((iter, next))
    }

    /// GetIterator(v, async): falls back to a sync iterator wrapped for async use.
    pub fn get_async_iterator(&mut self, v: Value) -> JsResult<(Value, Value)> {
        let method = self.get(v, PropertyKey::Symbol(self.symbols.async_iterator))?;
        if method.is_nullish() {
            let (iter, next) = self.get_iterator(v)?;
            let wrapper =
                crate::builtins::generator::create_async_from_sync_iterator(self, iter, next);
            let next = self.get(wrapper, PropertyKey::String(self.atoms.next))?;
            return Ok((wrapper, next));
        }
        if !self.is_callable(method) {
            return Err(self.type_error("Symbol.asyncIterator is not a function"));
        }
        self.get_iterator_from_method(v, method)
    }

    /// IteratorStep + IteratorValue: `(value, done)`.
    pub fn iterator_step(&mut self, iter: Value, next: Value) -> JsResult<(Value, bool)> {
        // Fast path: an untouched array iterator over a dense array.
        if let Some(it) = iter.as_object()
            && next == Value::object(self.array_iterator_next_fn())
            && let ObjectKind::ArrayIterator {
                target,
                index,
                kind: IterationKind::Values,
            } = self.heap.object(it).kind
            && let Some(arr) = target.as_object()
            && let ObjectKind::Array { .. } = self.heap.object(arr).kind
            && let Elements::Dense(elements) = &self.heap.object(arr).elements
        {
            let len = elements.len() as u32;
            if index >= len {
                if let ObjectKind::ArrayIterator { target, .. } = &mut self.heap.object_mut(it).kind
                {
                    *target = Value::UNDEFINED;
                }
                return Ok((Value::UNDEFINED, true));
            }
            let v = elements[index as usize];
            if !v.is_hole() {
                if let ObjectKind::ArrayIterator { index, .. } = &mut self.heap.object_mut(it).kind
                {
                    *index += 1;
                }
                return Ok((v, false));
            }
        }
        let result = self.call(next, iter, &[])?;
        if !result.is_object() {
            let what = self.display(result);
            return Err(self.type_error(format!("Iterator result {what} is not an object")));
        }
        let done = self.get(result, PropertyKey::String(self.atoms.done))?;
        if self.to_boolean(done) {
            return Ok((Value::UNDEFINED, true));
        }
        let value = self.get(result, PropertyKey::String(self.atoms.value))?;
        Ok((value, false))
    }

    /// The original %ArrayIteratorPrototype%.next (a replaced one is not the fast path's).
    fn array_iterator_next_fn(&mut self) -> ObjectId {
        self.intrinsics.array_iterator_next
    }

    /// [IteratorClose](https://tc39.es/ecma262/#sec-iteratorclose) for a throw completion:
    /// `return` is called, but the original error wins over anything it does.
    pub fn iterator_close_after_throw(
        &mut self,
        iter: Value,
        error: crate::Thrown,
    ) -> crate::Thrown {
        let saved = self.exception;
        self.roots.push(saved);
        let _ = self.iterator_close(iter);
        self.exception = saved;
        error
    }

    /// [IteratorClose](https://tc39.es/ecma262/#sec-iteratorclose) for a normal completion.
    pub fn iterator_close(&mut self, iter: Value) -> JsResult<()> {
        let ret = self.get(iter, PropertyKey::String(self.atoms.return_))?;
        if ret.is_nullish() {
            return Ok(());
        }
        let result = self.call(ret, iter, &[])?;
        if !result.is_object() {
            return Err(self.type_error("Iterator result is not an object"));
        }
        Ok(())
    }

    /// IteratorToList(GetIterator(v)).
    pub fn iterable_to_list(&mut self, v: Value) -> JsResult<Vec<Value>> {
        let (iter, next) = self.get_iterator(v)?;
        let mark = self.roots.len();
        self.roots.push(iter);
        let mut out = Vec::new();
        loop {
            let (value, done) = self.iterator_step(iter, next)?;
            if done {
                break;
            }
            self.grow_scratch(&mut out, 1)?;
            self.roots.push(value);
            out.push(value);
        }
        self.roots.truncate(mark);
        Ok(out)
    }

    /// Reserve the memory of an argument list of `count` values: the list, and its copy
    /// on the value stack when it is passed to a call ([`Vm::reserve_bytes`]).
    fn reserve_argument_list(&mut self, count: usize) -> JsResult<()> {
        self.reserve_bytes(count.saturating_mul(2 * size_of::<Value>()))
    }

    /// The values of a spread argument (`f(...xs)`); arrays with the built-in iterator skip the protocol.
    pub fn spread_values(&mut self, v: Value) -> JsResult<Vec<Value>> {
        if let Some(o) = v.as_object()
            && self.is_plain_array_iteration(o)
            && let Elements::Dense(e) = &self.heap.object(o).elements
            && !e.iter().any(|v| v.is_hole())
        {
            self.reserve_argument_list(e.len())?;
            let Elements::Dense(e) = &self.heap.object(o).elements else {
                unreachable!("checked above")
            };
            return Ok(e.to_vec());
        }
        self.iterable_to_list(v)
    }

    /// True if iterating `o` is unobservable: a dense array whose iteration methods are the originals.
    fn is_plain_array_iteration(&mut self, o: ObjectId) -> bool {
        let object = self.heap.object(o);
        if !object.is_array() || object.proto != Some(self.intrinsics.array_prototype) {
            return false;
        }
        let iter_key = PropertyKey::Symbol(self.symbols.iterator);
        if self.heap.own_property(o, iter_key).is_some() {
            return false;
        }
        let proto_iter = self
            .heap
            .own_property(self.intrinsics.array_prototype, iter_key)
            .map(|p| p.value);
        if proto_iter != Some(Value::object(self.intrinsics.array_prototype_values)) {
            return false;
        }
        let next_key = PropertyKey::String(self.atoms.next);
        let next = self
            .heap
            .own_property(self.intrinsics.array_iterator_prototype, next_key)
            .map(|p| p.value);
        next == Some(Value::object(self.array_iterator_next_fn()))
    }

    /// `ArraySpread`: append the values of iterable `v` to array `arr`.
    pub fn array_spread(&mut self, arr: Value, v: Value) -> JsResult<()> {
        let values = self.spread_values(v)?;
        if let Some(a) = arr.as_object()
            && let Elements::Dense(e) = &mut self.heap.object_mut(a).elements
        {
            e.extend_from_slice(&values);
        }
        Ok(())
    }

    /// [CreateListFromArrayLike](https://tc39.es/ecma262/#sec-createlistfromarraylike)
    pub fn create_list_from_array_like(&mut self, v: Value) -> JsResult<Vec<Value>> {
        let start = self.stack.len();
        let pushed = self.push_list_from_array_like(v);
        let values = self.stack.split_off(start);
        pushed.map(|_| values)
    }

    /// Call(`f`, `this`, CreateListFromArrayLike(`list`)), the arguments taken from the
    /// value stack without a copy.
    pub(crate) fn call_with_array_like(
        &mut self,
        f: Value,
        this: Value,
        list: Value,
    ) -> JsResult<Value> {
        let start = self.stack.len();
        let result = self
            .push_list_from_array_like(list)
            .and_then(|count| self.call_from_stack(f, this, start, count, Value::UNDEFINED));
        self.stack.truncate(start);
        result
    }

    /// CreateListFromArrayLike with the values pushed onto the value stack, where the
    /// collector sees them while getters run and a call can take them as its arguments
    /// in place; returns how many were pushed. On error the stack may hold some of them.
    pub(crate) fn push_list_from_array_like(&mut self, v: Value) -> JsResult<usize> {
        let Some(obj) = v.as_object() else {
            return Err(self.type_error("CreateListFromArrayLike called on non-object"));
        };
        if let ObjectKind::Array { .. } | ObjectKind::Arguments { env: None, .. } =
            self.heap.object(obj).kind
            && let Elements::Dense(e) = &self.heap.object(obj).elements
            && !e.iter().any(|v| v.is_hole())
            && self.heap.object(obj).is_array()
        {
            self.reserve_argument_list(e.len())?;
            let Elements::Dense(e) = &self.heap.object(obj).elements else {
                unreachable!("checked above")
            };
            self.stack.extend_from_slice(e);
            return Ok(e.len());
        }
        // Arguments objects whose layout is untouched: length in slot 0, values dense.
        let o = self.heap.object(obj);
        if (o.shape == self.shapes.arguments_mapped || o.shape == self.shapes.arguments_unmapped)
            && let Some(len) = o.slots[0].as_int()
            && let Elements::Dense(e) = &o.elements
            && e.len() == len as usize
            && !e.iter().any(|v| v.is_hole())
        {
            self.reserve_argument_list(len as usize)?;
            let o = self.heap.object(obj);
            let Elements::Dense(e) = &o.elements else {
                unreachable!("checked above")
            };
            let start = self.stack.len();
            self.stack.extend_from_slice(e);
            if let ObjectKind::Arguments {
                env: Some(env),
                mapped,
            } = &o.kind
            {
                for (i, m) in mapped.iter().enumerate() {
                    if *m {
                        self.stack[start + i] = self.heap.env(*env).slots[i];
                    }
                }
            }
            return Ok(len as usize);
        }
        let len = self.length_of_array_like(v)?;
        if len > 10_000_000.0 {
            return Err(self.range_error("Too many arguments in function call"));
        }
        self.reserve_argument_list(len as usize)?;
        for i in 0..len as u32 {
            let value = self.get(v, PropertyKey::Index(i))?;
            self.stack.push(value);
        }
        Ok(len as usize)
    }

    /// [LengthOfArrayLike](https://tc39.es/ecma262/#sec-lengthofarraylike)
    pub fn length_of_array_like(&mut self, v: Value) -> JsResult<f64> {
        if let Some(o) = v.as_object()
            && self.heap.object(o).is_array()
        {
            return Ok(array_length(self.heap.object(o)) as f64);
        }
        let len = self.get(v, PropertyKey::String(self.atoms.length))?;
        self.to_length(len)
    }

    /// [CopyDataProperties](https://tc39.es/ecma262/#sec-copydataproperties); `excluded` is an
    /// array of keys or undefined.
    pub fn copy_data_properties(
        &mut self,
        target: Value,
        source: Value,
        excluded: Value,
    ) -> JsResult<()> {
        if source.is_nullish() {
            return Ok(());
        }
        let Some(target) = target.as_object() else {
            return Ok(());
        };
        let from = self.to_object(source)?;
        let mut skip = Vec::new();
        if excluded.is_object() {
            for k in self.create_list_from_array_like(excluded)? {
                skip.push(self.to_property_key(k)?);
            }
        }
        let mark = self.roots.len();
        self.roots.push(Value::object(from));
        for key in self.own_property_keys(from)? {
            if skip.contains(&key) {
                continue;
            }
            if let Some(desc) = self.get_own_property(from, key)?
                && desc.enumerable == Some(true)
            {
                let v = self.get(Value::object(from), key)?;
                self.create_data_property(target, key, v)?;
            }
        }
        self.roots.truncate(mark);
        Ok(())
    }

    // ---- for-in ----

    /// Start a `for-in` over `v`: an internal iterator of its enumerable string keys.
    pub fn for_in_prepare(&mut self, v: Value) -> JsResult<Value> {
        let object = if v.is_nullish() {
            None
        } else {
            Some(self.to_object(v)?)
        };
        let state = ForInState {
            object,
            keys: Vec::new(),
            index: 0,
            visited: Default::default(),
            own_only: false,
        };
        let it = self
            .heap
            .new_object(None, ObjectKind::ForInIterator(Box::new(state)));
        let Some(o) = object else {
            return Ok(Value::object(it));
        };
        match self.own_enumerable_keys_alone(o) {
            Some((keys, scanned)) => {
                self.charge(scanned as u64)?;
                let values = keys.into_iter().map(|k| self.key_to_value(k)).collect();
                if let ObjectKind::ForInIterator(s) = &mut self.heap.object_mut(it).kind {
                    s.keys = values;
                    s.own_only = true;
                }
            }
            None => self.for_in_load(it, o)?,
        }
        Ok(Value::object(it))
    }

    /// The enumerable keys of `o` and how many keys were looked at, when they are all a
    /// `for-in` over it can visit: its keys are stored ([`crate::heap::Heap::stored_enumerable_keys`])
    /// and no object up its prototype chain has an enumerable key (the usual case: the
    /// methods of classes and of `Object.prototype` are not enumerable).
    fn own_enumerable_keys_alone(&self, o: ObjectId) -> Option<(Vec<PropertyKey>, usize)> {
        let mut proto = self.heap.object(o).proto;
        while let Some(p) = proto {
            let (keys, _) = self.heap.stored_enumerable_keys(p)?;
            if !keys.is_empty() {
                return None;
            }
            proto = self.heap.object(p).proto;
        }
        self.heap.stored_enumerable_keys(o)
    }

    /// Load the keys of one object of the chain into the iterator.
    fn for_in_load(&mut self, it: ObjectId, o: ObjectId) -> JsResult<()> {
        let keys = self.own_property_keys(o)?;
        let values: Vec<Value> = keys
            .iter()
            .filter(|k| !matches!(k, PropertyKey::Symbol(_)))
            .map(|&k| self.key_to_value(k))
            .collect();
        if let ObjectKind::ForInIterator(s) = &mut self.heap.object_mut(it).kind {
            s.object = Some(o);
            s.keys = values;
            s.index = 0;
        }
        Ok(())
    }

    /// The next key of a `for-in`, skipping keys deleted or shadowed meanwhile: `(key, done)`.
    pub fn for_in_next(&mut self, it: Value) -> JsResult<(Value, bool)> {
        let Some(it) = it.as_object() else {
            return Ok((Value::UNDEFINED, true));
        };
        loop {
            let (object, key) = match &mut self.heap.object_mut(it).kind {
                ObjectKind::ForInIterator(s) => {
                    let Some(object) = s.object else {
                        return Ok((Value::UNDEFINED, true));
                    };
                    let key = s.keys.get(s.index).copied();
                    s.index += 1;
                    if key.is_none() && s.own_only {
                        s.object = None;
                        return Ok((Value::UNDEFINED, true));
                    }
                    (object, key)
                }
                _ => return Ok((Value::UNDEFINED, true)),
            };
            let Some(key_value) = key else {
                // This object is exhausted: move up the prototype chain.
                match self.get_prototype_of(object)? {
                    Some(p) => {
                        self.for_in_load(it, p)?;
                        continue;
                    }
                    None => {
                        if let ObjectKind::ForInIterator(s) = &mut self.heap.object_mut(it).kind {
                            s.object = None;
                        }
                        return Ok((Value::UNDEFINED, true));
                    }
                }
            };
            let key = self.to_property_key(key_value)?;
            let first_visit = match &mut self.heap.object_mut(it).kind {
                ObjectKind::ForInIterator(s) => s.own_only || s.visited.insert(key),
                _ => false,
            };
            if !first_visit {
                continue;
            }
            match self.get_own_property(object, key)? {
                Some(d) if d.enumerable == Some(true) => return Ok((key_value, false)),
                _ => continue,
            }
        }
    }
}
