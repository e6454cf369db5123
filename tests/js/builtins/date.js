// Date: Kiln's local time zone is UTC.
const d = new Date(2024, 0, 2, 3, 4, 5, 6);
print(d.getTime(), d.toISOString()) // expect: 1704164645006 2024-01-02T03:04:05.006Z
print(String(d)) // expect: Tue Jan 02 2024 03:04:05 GMT+0000 (Coordinated Universal Time)
print(d.toUTCString(), '|', d.toDateString(), '|', d.toTimeString()) // expect: Tue, 02 Jan 2024 03:04:05 GMT | Tue Jan 02 2024 | 03:04:05 GMT+0000 (Coordinated Universal Time)
print(d.getDay(), d.getYear(), d.getTimezoneOffset(), d.getUTCHours(), d.getMilliseconds()) // expect: 2 124 0 3 6

// parsing round-trips the string forms
print(Date.parse(String(d)), Date.parse(d.toUTCString()), Date.parse(d.toISOString())) // expect: 1704164645000 1704164645000 1704164645006
print(Date.parse('2024-01-02'), Date.parse('2024-01'), Date.parse('2024'), Date.parse('2024-01-02T03:04')) // expect: 1704153600000 1704067200000 1704067200000 1704164640000
print(Date.parse('2024-01-02T03:04:05.678+01:00'), Date.parse('+275760-09-13T00:00:00.000Z'), Date.parse('-271821-04-20T00:00:00.000Z')) // expect: 1704161045678 8640000000000000 -8640000000000000
print(Date.parse('2024-13-01'), Date.parse('2023-02-29'), Date.parse('-000000-01-01T00:00:00Z'), Date.parse('2024-01-02T24:00:01'), Date.parse('nonsense')) // expect: NaN NaN NaN NaN NaN
print(Date.parse('2024-01-02T24:00'), Date.parse('Thu Jan 01 1970 00:00:00 GMT+0100'), Date.parse('Jan 1 1970')) // expect: 1704240000000 -3600000 0

// the time range and invalid dates
print(new Date(8.64e15).getTime(), new Date(8.64e15 + 1).getTime(), new Date(NaN) + '') // expect: 8640000000000000 NaN Invalid Date
print(new Date(-1).toISOString(), new Date(-62198755200000).toISOString(), new Date(253402300800000).toISOString()) // expect: 1969-12-31T23:59:59.999Z -000001-01-01T00:00:00.000Z +010000-01-01T00:00:00.000Z
try { new Date(NaN).toISOString() } catch (e) { print(e.name) } // expect: RangeError
print(new Date(NaN).toJSON(), new Date(0).toJSON()) // expect: null 1970-01-01T00:00:00.000Z

// components: two-digit years, overflow, Date.UTC
print(Date.UTC(99, 11, 31), Date.UTC(2000), Date.UTC(), new Date(99, 0).getFullYear()) // expect: 946598400000 946684800000 NaN 1999
print(new Date(2024, 0, 32).toISOString(), new Date(2024, 12, 1).toISOString(), new Date(2024, -1, 1).toISOString()) // expect: 2024-02-01T00:00:00.000Z 2025-01-01T00:00:00.000Z 2023-12-01T00:00:00.000Z

// setters keep the other fields and return the new time value
const e = new Date(2020, 1, 29);
print(e.setFullYear(2021), e.toISOString()) // expect: 1614556800000 2021-03-01T00:00:00.000Z
e.setMonth(0, 31);
print(e.toISOString()) // expect: 2021-01-31T00:00:00.000Z
e.setHours(25, 30);
print(e.toISOString()) // expect: 2021-02-01T01:30:00.000Z
e.setUTCSeconds(61, 5);
print(e.toISOString()) // expect: 2021-02-01T01:31:01.005Z
print(e.setMinutes(), e.getTime()) // expect: NaN NaN
print(e.setDate(1), e.setFullYear(2000, 5), new Date(e).toISOString()) // expect: NaN 959817600000 2000-06-01T00:00:00.000Z
print(new Date(2016, 1, 29).setYear(15), new Date(NaN).setYear(2000)) // expect: -1730592000000 946684800000

// conversions
print(typeof Date(), typeof new Date(), new Date(d).getTime() === d.getTime(), new Date(new String('1970-01-01')).getTime()) // expect: string object true 0
print(d[Symbol.toPrimitive]('number'), d[Symbol.toPrimitive]('default') === String(d), +new Date(5)) // expect: 1704164645006 true 5
try { d[Symbol.toPrimitive]('bogus') } catch (e) { print(e.name) } // expect: TypeError
try { Date.prototype.getTime.call({}) } catch (e) { print(e.name) } // expect: TypeError
print(Date.prototype.toGMTString === Date.prototype.toUTCString, Date.length, Date.UTC.length) // expect: true 7 7
print(typeof Date.now(), Date.now() > 1.7e12) // expect: number true
