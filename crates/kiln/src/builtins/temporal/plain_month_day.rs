//! `Temporal.PlainMonthDay` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-plainmonthday-objects)).

use super::options::{
    self, FieldSet, calendar_with_iso_default, options_object, overflow, partial_temporal_object,
    read_fields, required_string, to_integer_with_truncation,
};
use super::plain_date::constructor_calendar;
use super::{OrThrow, TypeSpec, calendar_string_methods, create, this_value, value_of};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::PlainMonthDay;
use temporal_rs::options::Overflow;
use temporal_rs::partial::PartialDate;

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "PlainMonthDay",
    tag: "Temporal.PlainMonthDay",
    constructor,
    length: 2,
    statics: &[("from", from, 1)],
    getters: &[&[
        ("calendarId", calendar_id),
        ("monthCode", month_code),
        ("day", day),
    ]],
    methods: &[
        &calendar_string_methods::<PlainMonthDay>(),
        &[
            ("with", with, 1),
            ("equals", equals, 1),
            ("toPlainDate", to_plain_date, 1),
        ],
    ],
};

/// [Temporal.PlainMonthDay](https://tc39.es/proposal-temporal/#sec-temporal.plainmonthday)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.PlainMonthDay must be called with new"));
    }
    // 2-3. ToIntegerWithTruncation of month and day.
    let m = to_integer_with_truncation(vm, vm.arg(args, 0))?;
    let d = to_integer_with_truncation(vm, vm.arg(args, 1))?;
    // 4-6. The calendar.
    let calendar = constructor_calendar(vm, vm.arg(args, 2))?;
    // 7-8. The reference year: 1972 when undefined.
    let year = vm.arg(args, 3);
    let year = if year.is_undefined() {
        1972.0
    } else {
        to_integer_with_truncation(vm, year)?
    };
    // 9. If IsValidISODate(y, m, d) is false, throw a RangeError exception.
    let md = PlainMonthDay::new_with_overflow(
        m.clamp(0.0, 255.0) as u8,
        d.clamp(0.0, 255.0) as u8,
        calendar,
        Overflow::Reject,
        Some(options::saturate_i32(year)),
    )
    .or_throw(vm)?;
    create(vm, md, args.new_target)
}

/// [ToTemporalMonthDay](https://tc39.es/proposal-temporal/#sec-temporal-totemporalmonthday)
fn to_month_day(vm: &mut Vm, item: Value, options: Value) -> JsResult<PlainMonthDay> {
    if let Some(obj) = item.as_object() {
        // 2.a. A PlainMonthDay: the options are still read.
        if let Some(md) = value_of::<PlainMonthDay>(vm, item) {
            let options = options_object(vm, options)?;
            overflow(vm, options)?;
            return Ok(md);
        }
        // 2.b-f. A property bag: calendar, fields, then options.
        let calendar = calendar_with_iso_default(vm, obj)?;
        let fields = read_fields(vm, obj, &calendar, FieldSet::DATE, false)?;
        let options = options_object(vm, options)?;
        let overflow = overflow(vm, options)?;
        let mut partial = PartialDate::new();
        partial.calendar_fields = fields.calendar_fields();
        partial.calendar = calendar;
        return PlainMonthDay::from_partial(partial, Some(overflow)).or_throw(vm);
    }
    // 3. A string, parsed before the options are read.
    let s = required_string(vm, item, "a month and day")?;
    let md = PlainMonthDay::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    overflow(vm, options)?;
    Ok(md)
}

/// [Temporal.PlainMonthDay.from](https://tc39.es/proposal-temporal/#sec-temporal.plainmonthday.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let md = to_month_day(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, md, Value::UNDEFINED)
}

fn this_month_day(vm: &mut Vm, this: Value, method: &str) -> JsResult<PlainMonthDay> {
    this_value::<PlainMonthDay>(vm, this, method)
}

/// [get Temporal.PlainMonthDay.prototype.calendarId](https://tc39.es/proposal-temporal/#sec-get-temporal.plainmonthday.prototype.calendarid)
fn calendar_id(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "calendarId")?;
    Ok(vm.intern_value(md.calendar().identifier()))
}

/// [get Temporal.PlainMonthDay.prototype.monthCode](https://tc39.es/proposal-temporal/#sec-get-temporal.plainmonthday.prototype.monthcode)
fn month_code(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "monthCode")?;
    Ok(vm.string_value(md.month_code().as_str()))
}

/// [get Temporal.PlainMonthDay.prototype.day](https://tc39.es/proposal-temporal/#sec-get-temporal.plainmonthday.prototype.day)
fn day(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "day")?;
    Ok(Value::number(md.day().into()))
}

/// [Temporal.PlainMonthDay.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.plainmonthday.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "with")?;
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    let fields = read_fields(vm, bag, md.calendar(), FieldSet::DATE, true)?;
    let options = options_object(vm, vm.arg(args, 1))?;
    let overflow = overflow(vm, options)?;
    let result = md
        .with(fields.calendar_fields(), Some(overflow))
        .or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainMonthDay.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.plainmonthday.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "equals")?;
    let other = to_month_day(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    Ok(Value::bool(md == other))
}

/// [Temporal.PlainMonthDay.prototype.toPlainDate](https://tc39.es/proposal-temporal/#sec-temporal.plainmonthday.prototype.toplaindate)
fn to_plain_date(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let md = this_month_day(vm, this, "toPlainDate")?;
    // 3. If item is not an Object, throw a TypeError exception.
    let Some(item) = vm.arg(args, 0).as_object() else {
        return Err(vm.type_error("toPlainDate() needs an object with a year"));
    };
    // 6. Let inputFields be ? PrepareCalendarFields(calendar, item, « year », « », « »).
    let fields = read_fields(vm, item, md.calendar(), FieldSet::YEAR, false)?;
    let date = md
        .to_plain_date(Some(fields.calendar_fields()))
        .or_throw(vm)?;
    create(vm, date, Value::UNDEFINED)
}
