//! `Temporal.PlainYearMonth` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-plainyearmonth-objects)).

use super::options::{
    self, FieldSet, UnitGroup, calendar_with_iso_default, options_object, overflow,
    partial_temporal_object, read_fields, required_string, to_integer_with_truncation,
};
use super::plain_date::constructor_calendar;
use super::{
    Difference, OrThrow, TypeSpec, add_methods, calendar_string_methods, create,
    difference_methods, era_value, optional_number, this_value, value_of,
};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::PlainYearMonth;
use temporal_rs::options::{DifferenceSettings, Unit};
use temporal_rs::partial::PartialYearMonth;
use temporal_rs::{Duration, TemporalResult};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "PlainYearMonth",
    tag: "Temporal.PlainYearMonth",
    constructor,
    length: 2,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[&[
        ("calendarId", calendar_id),
        ("era", era),
        ("eraYear", era_year),
        ("year", year),
        ("month", month),
        ("monthCode", month_code),
        ("daysInYear", days_in_year),
        ("daysInMonth", days_in_month),
        ("monthsInYear", months_in_year),
        ("inLeapYear", in_leap_year),
    ]],
    methods: &[
        &calendar_string_methods::<PlainYearMonth>(),
        &difference_methods::<PlainYearMonth>(),
        &add_methods::<PlainYearMonth>(),
        &[
            ("with", with, 1),
            ("equals", equals, 1),
            ("toPlainDate", to_plain_date, 1),
        ],
    ],
};

/// [Temporal.PlainYearMonth](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.PlainYearMonth must be called with new"));
    }
    // 2-3. ToIntegerWithTruncation of year and month.
    let y = to_integer_with_truncation(vm, vm.arg(args, 0))?;
    let m = to_integer_with_truncation(vm, vm.arg(args, 1))?;
    // 4-6. The calendar.
    let calendar = constructor_calendar(vm, vm.arg(args, 2))?;
    // 7-8. The reference day: 1 when undefined.
    let day = vm.arg(args, 3);
    let day = if day.is_undefined() {
        1.0
    } else {
        to_integer_with_truncation(vm, day)?
    };
    // 9. If IsValidISODate(y, m, ref) is false, throw a RangeError exception.
    let ym = PlainYearMonth::try_new(
        options::saturate_i32(y),
        m.clamp(0.0, 255.0) as u8,
        Some(day.clamp(0.0, 255.0) as u8),
        calendar,
    )
    .or_throw(vm)?;
    create(vm, ym, args.new_target)
}

/// [ToTemporalYearMonth](https://tc39.es/proposal-temporal/#sec-temporal-totemporalyearmonth)
fn to_year_month(vm: &mut Vm, item: Value, options: Value) -> JsResult<PlainYearMonth> {
    if let Some(obj) = item.as_object() {
        // 2.a. A PlainYearMonth: the options are still read.
        if let Some(ym) = value_of::<PlainYearMonth>(vm, item) {
            let options = options_object(vm, options)?;
            overflow(vm, options)?;
            return Ok(ym);
        }
        // 2.b-f. A property bag: calendar, fields, then options.
        let calendar = calendar_with_iso_default(vm, obj)?;
        let fields = read_fields(vm, obj, &calendar, FieldSet::YEAR_MONTH, false)?;
        let options = options_object(vm, options)?;
        let overflow = overflow(vm, options)?;
        let partial = PartialYearMonth {
            calendar_fields: fields.year_month_fields(),
            calendar,
        };
        return PlainYearMonth::from_partial(partial, Some(overflow)).or_throw(vm);
    }
    // 3. A string, parsed before the options are read.
    let s = required_string(vm, item, "a year and month")?;
    let ym = PlainYearMonth::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    overflow(vm, options)?;
    Ok(ym)
}

/// [Temporal.PlainYearMonth.from](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ym = to_year_month(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, ym, Value::UNDEFINED)
}

/// [Temporal.PlainYearMonth.compare](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_year_month(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let two = to_year_month(vm, vm.arg(args, 1), Value::UNDEFINED)?;
    Ok(Value::int(one.compare_iso(&two) as i32))
}

fn this_year_month(vm: &mut Vm, this: Value, method: &str) -> JsResult<PlainYearMonth> {
    this_value::<PlainYearMonth>(vm, this, method)
}

macro_rules! getters {
    ($($fn_name:ident, $js:literal, |$vm:ident, $v:ident| $body:expr;)*) => {$(
        #[doc = concat!("[get Temporal.PlainYearMonth.prototype.", $js, "](https://tc39.es/proposal-temporal/#sec-get-temporal.plainyearmonth.prototype.", $js, ")")]
        fn $fn_name($vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
            let $v = this_year_month($vm, this, $js)?;
            Ok($body)
        }
    )*};
}

getters!(
    calendar_id, "calendarId", |vm, v| vm.intern_value(v.calendar().identifier());
    era, "era", |vm, v| era_value(vm, v.era());
    era_year, "eraYear", |vm, v| optional_number(v.era_year());
    year, "year", |vm, v| Value::number(v.year().into());
    month, "month", |vm, v| Value::number(v.month().into());
    month_code, "monthCode", |vm, v| vm.string_value(v.month_code().as_str());
    days_in_year, "daysInYear", |vm, v| Value::number(v.days_in_year().into());
    days_in_month, "daysInMonth", |vm, v| Value::number(v.days_in_month().into());
    months_in_year, "monthsInYear", |vm, v| Value::number(v.months_in_year().into());
    in_leap_year, "inLeapYear", |vm, v| Value::bool(v.in_leap_year());
);

/// [Temporal.PlainYearMonth.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let ym = this_year_month(vm, this, "with")?;
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    let fields = read_fields(vm, bag, ym.calendar(), FieldSet::YEAR_MONTH, true)?;
    let options = options_object(vm, vm.arg(args, 1))?;
    let overflow = overflow(vm, options)?;
    let result = ym
        .with(fields.year_month_fields(), Some(overflow))
        .or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainYearMonth.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let ym = this_year_month(vm, this, "equals")?;
    let other = to_year_month(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    Ok(Value::bool(ym == other))
}

/// [Temporal.PlainYearMonth.prototype.toPlainDate](https://tc39.es/proposal-temporal/#sec-temporal.plainyearmonth.prototype.toplaindate)
fn to_plain_date(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let ym = this_year_month(vm, this, "toPlainDate")?;
    // 3. If item is not an Object, throw a TypeError exception.
    let Some(item) = vm.arg(args, 0).as_object() else {
        return Err(vm.type_error("toPlainDate() needs an object with a day"));
    };
    // 6. Let inputFields be ? PrepareCalendarFields(calendar, item, « day », « », « »).
    let fields = read_fields(vm, item, ym.calendar(), FieldSet::DAY, false)?;
    let date = ym
        .to_plain_date(Some(fields.calendar_fields()))
        .or_throw(vm)?;
    create(vm, date, Value::UNDEFINED)
}

impl Difference for PlainYearMonth {
    const UNITS: UnitGroup = UnitGroup::Date;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_year_month(vm, other, Value::UNDEFINED)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainYearMonth::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainYearMonth::since(self, other, settings)
    }
    fn calendar_year(&self) -> Option<(&temporal_rs::Calendar, i32)> {
        Some((self.calendar(), self.year()))
    }
    /// Weeks and days are not units of a year-month difference.
    fn check(vm: &mut Vm, settings: &DifferenceSettings) -> JsResult<()> {
        for unit in [settings.largest_unit, settings.smallest_unit] {
            if matches!(unit, Some(Unit::Week | Unit::Day)) {
                return Err(vm.range_error("a PlainYearMonth difference is in years and months"));
            }
        }
        Ok(())
    }
}
