//! Time words in a query, resolved to date ranges against the host's local
//! today.
//!
//! The rules (weeks start on Monday, ranges are inclusive):
//! - `today`, `tonight`, `this morning`/`afternoon`/`evening`: today;
//!   `yesterday`: the day before; `day before yesterday`: two days before.
//! - `this week`: Monday to today; `last week`/`previous week`: the
//!   calendar week before; `past week`: the last seven days, today included.
//!   `this`/`last`/`previous`/`past` `month` and `year` alike (`past month`
//!   is 30 days, `past year` 365). `last`/`past N days|weeks|months`: that
//!   many, ending today. `recently`/`lately`: the last 14 days.
//! - `this weekend`: this week's Saturday and Sunday; `last weekend`: the
//!   week before's; `the weekend` (`over the weekend`): the latest one that
//!   has begun. `last night`: yesterday and today (a night's entries may
//!   carry either date). `the week before last`: the calendar week two
//!   weeks back.
//! - Quarters are calendar quarters: `Q3` (the latest Q3 that has begun),
//!   `Q3 2026`, `this quarter` (its first day to today), `last`/`previous
//!   quarter`, `past quarter` (91 days).
//! - A weekday (`Monday`, `on Monday`, `last Friday`): the most recent such
//!   day *before* today, so `on Monday` said on a Monday is a week ago (one
//!   says `today` for today). `this Monday`: the Monday of this week, which
//!   is today on a Monday. Plurals (`Mondays`) and a weekday after `a`,
//!   `an`, `any`, `every` or `each` (`on a Friday`: any Friday) are
//!   ordinary words. A weekday next to a calendar week (`Tuesday last
//!   week`, `on Thursday two weeks ago`, `Monday of last week`, `this week
//!   on Monday`) is that day of that week, once the week has reached it.
//! - `N days ago`: that day; `N weeks ago`: the calendar week holding the
//!   day 7N days back; `N months ago`: that calendar month (N a number,
//!   `a`, `an`, `one` to `ten`, or `a couple (of)`, which is 2). `a few` or
//!   `several` is 3 after `last`/`past` (`the last few days`: three days,
//!   today included) and, before `ago`, anything from 2 to 4: `a few weeks
//!   ago` runs from the week four weeks back to the one two weeks back.
//! - `2026-05-03`, `2026/05/03`: that day; `2026-05`: that month.
//!   `May 3`, `May 3rd`, `3 May`, with or without a year after: that day;
//!   without a year, the most recent one not after today. A day that does
//!   not exist (`Feb 30`) is no date.
//! - A month (`in March`, `during Sept`, `last May`, bare `January`): the
//!   most recent such month that has begun (`in May` in May is this May);
//!   `last May` in May is a year ago; `May 2025` that one. Bare month names
//!   that are also English words (`March`, `May`) and abbreviations need a
//!   preposition, a number or `last`/`this`; `in 2025` is the year.
//! - `since X`: from the start of X to today. `on`, `in`, `during`, `from`,
//!   `over` before an expression belong to it, and so does `the` before
//!   `last`/`past` (`over the past week`).
//!
//! Words are compared lowercased with surrounding punctuation and a
//! possessive `'s` dropped (`yesterday's`).

use crate::time::Date;

/// Most time expressions kept from one query; later ones stay words.
pub const MAX_SPANS: usize = 16;

/// A time expression found in a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The words as written, joined by single spaces.
    pub phrase: String,
    /// Index of its first word among the query's whitespace-separated words.
    pub at: usize,
    /// First day, inclusive.
    pub first: Date,
    /// Last day, inclusive.
    pub last: Date,
}

impl Span {
    /// Does the range hold `date`?
    pub fn contains(&self, date: Date) -> bool {
        self.first <= date && date <= self.last
    }

    /// The name of the one calendar month the range is (from its first day,
    /// to its last or to today), lowercase; none for any other range, and
    /// for May, which is also an English word.
    pub fn month_name(&self) -> Option<&'static str> {
        let (a, b) = (self.first, self.last);
        let whole = a.day() == 1 && a.year() == b.year() && a.month() == b.month();
        (whole && a.month() != 5).then(|| MONTHS[a.month() as usize - 1])
    }
}

/// A query split into time expressions and the words left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Time expressions, in query order.
    pub spans: Vec<Span>,
    /// The other words, as (index among the query's words, word as written).
    pub words: Vec<(usize, String)>,
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
pub(crate) const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Month number for a full name or a 3-letter abbreviation (and `sept`),
/// and whether the word is safe alone (not an English word or abbreviation).
fn month(word: &str) -> Option<(u32, bool)> {
    for (i, name) in MONTHS.iter().enumerate() {
        let m = i as u32 + 1;
        if word == *name {
            return Some((m, !matches!(m, 3 | 5)));
        }
        if word.len() == 3 && name.starts_with(word) || word == "sept" && m == 9 {
            return Some((m, false));
        }
    }
    None
}

fn weekday(word: &str) -> Option<u32> {
    WEEKDAYS.iter().position(|d| *d == word).map(|i| i as u32)
}

/// A count: 1-3660, or a number word.
fn count(word: &str) -> Option<i64> {
    const WORDS: [&str; 11] = [
        "a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    if word == "an" {
        return Some(1);
    }
    if let Some(i) = WORDS.iter().position(|w| *w == word) {
        return Some(i.max(1) as i64);
    }
    if word.len() <= 4 && word.bytes().all(|b| b.is_ascii_digit()) {
        let n: i64 = word.parse().ok()?;
        return (1..=3660).contains(&n).then_some(n);
    }
    None
}

/// A count before a unit: exact, or `a few` (about three).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Amount {
    Exact(i64),
    Few,
}

impl Amount {
    /// The one number it stands for after `last`/`past`.
    fn n(self) -> i64 {
        match self {
            Amount::Exact(n) => n,
            Amount::Few => 3,
        }
    }

    /// The nearest and farthest it can be before `ago`.
    fn reach(self) -> (i64, i64) {
        match self {
            Amount::Exact(n) => (n, n),
            Amount::Few => (2, 4),
        }
    }
}

/// The quarter (1-4) named by `q1`..`q4`.
fn quarter(word: &str) -> Option<u32> {
    let q = word.strip_prefix('q')?;
    (q.len() == 1).then_some(())?;
    let q: u32 = q.parse().ok()?;
    (1..=4).contains(&q).then_some(q)
}

/// The first and last day of quarter `q` of `year`.
fn quarter_range(year: i32, q: u32) -> Option<(Date, Date)> {
    let (first, _) = month_range(year, 3 * q - 2)?;
    let (_, last) = month_range(year, 3 * q)?;
    Some((first, last))
}

/// A day of the month: `3`, `03`, `3rd`, `21st`.
fn day_of_month(word: &str) -> Option<u32> {
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let d: u32 = digits.parse().ok()?;
    (1..=31).contains(&d).then_some(d)
}

fn year(word: &str) -> Option<i32> {
    if word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) {
        let y: i32 = word.parse().ok()?;
        return (1..=9999).contains(&y).then_some(y);
    }
    None
}

fn days(d: Date, n: i64) -> Date {
    Date::from_days(d.to_days() + n)
}

fn monday_of(d: Date) -> Date {
    days(d, -i64::from(d.weekday()))
}

fn month_range(year: i32, month: u32) -> Option<(Date, Date)> {
    let first = Date::new(year, month, 1)?;
    Some((first, Date::new(year, month, first.days_in_month())?))
}

/// The month `n` months before `d`'s.
fn months_back(d: Date, n: i64) -> Option<(i32, u32)> {
    let index = i64::from(d.year()) * 12 + i64::from(d.month()) - 1 - n;
    let year = i32::try_from(index.div_euclid(12)).ok()?;
    Some((year, index.rem_euclid(12) as u32 + 1))
}

struct Parser<'a> {
    words: &'a [String],
    today: Date,
}

impl Parser<'_> {
    fn w(&self, i: usize) -> &str {
        self.words.get(i).map_or("", String::as_str)
    }

    /// An expression starting at word `i`: (words used, first, last).
    /// `led` says a preposition or `since` comes before, which lets
    /// ambiguous words (`may`, `mar`, a bare year) count.
    fn expr(&self, i: usize, led: bool) -> Option<(usize, Date, Date)> {
        let t = self.today;
        let day = |d: Date| Some((1, d, d));
        match self.w(i) {
            "today" | "tonight" => return day(t),
            "yesterday" => return day(days(t, -1)),
            "recently" | "lately" => return Some((1, days(t, -13), t)),
            "day" if self.w(i + 1) == "before" && self.w(i + 2) == "yesterday" => {
                return Some((3, days(t, -2), days(t, -2)));
            }
            "week" if self.w(i + 1) == "before" && self.w(i + 2) == "last" => {
                let mon = days(monday_of(t), -14);
                return Some((3, mon, days(mon, 6)));
            }
            "the" => {
                return match self.w(i + 1) {
                    "weekend" => {
                        // Saturday is 5: today if it is the weekend, else the
                        // last one.
                        let back = i64::from(t.weekday()) - 5;
                        let sat = days(t, if back >= 0 { -back } else { -back - 7 });
                        Some((2, sat, days(sat, 1).min(t)))
                    }
                    "week" | "last" | "past" | "previous" => {
                        self.expr(i + 1, led).map(|(n, a, b)| (n + 1, a, b))
                    }
                    _ => None,
                };
            }
            "this" | "last" | "previous" | "past" => {
                if let Some(r) = self.relative(i) {
                    return Some(r);
                }
            }
            w => {
                if let Some(r) = self.iso(w) {
                    return Some(r);
                }
            }
        }
        if let Some(r) = self.ago(i) {
            return Some(r);
        }
        // `a Friday`, `every Monday`: any such day, no date.
        let any = i > 0 && matches!(self.w(i - 1), "a" | "an" | "any" | "every" | "each");
        if let Some(wd) = weekday(self.w(i)).filter(|_| !any) {
            return day(self.weekday_before(wd));
        }
        if let Some(r) = self.month_day(i, led) {
            return Some(r);
        }
        if let Some(q) = quarter(self.w(i)) {
            if let Some(y) = year(self.w(i + 1)) {
                let (a, b) = quarter_range(y, q)?;
                return Some((2, a, b));
            }
            let (a, b) = quarter_range(t.year(), q)?;
            if a <= t {
                return Some((1, a, b));
            }
            let (a, b) = quarter_range(t.year() - 1, q)?;
            return Some((1, a, b));
        }
        if led && let Some(y) = year(self.w(i)) {
            return Some((1, Date::new(y, 1, 1)?, Date::new(y, 12, 31)?));
        }
        None
    }

    /// The most recent `wd` strictly before today.
    fn weekday_before(&self, wd: u32) -> Date {
        let back = (self.today.weekday() + 7 - wd - 1) % 7 + 1;
        days(self.today, -i64::from(back))
    }

    /// `this|last|previous|past` + a unit, a weekday, a month or a count.
    fn relative(&self, i: usize) -> Option<(usize, Date, Date)> {
        let t = self.today;
        let which = self.w(i);
        let this = which == "this";
        let past = which == "past";
        let next = self.w(i + 1);
        let mon = monday_of(t);
        let r = |first: Date, last: Date| Some((2, first, last));
        match next {
            "morning" | "afternoon" | "evening" if this => return r(t, t),
            "night" if which == "last" => return r(days(t, -1), t),
            "quarter" => {
                let q = (t.month() - 1) / 3 + 1;
                let (first, _) = quarter_range(t.year(), q)?;
                return if this {
                    r(first, t)
                } else if past {
                    r(days(t, -90), t)
                } else {
                    let (a, b) = quarter_range(days(first, -1).year(), (q + 2) % 4 + 1)?;
                    r(a, b)
                };
            }
            "week" if this => return r(mon, t),
            "week" if past => return r(days(t, -6), t),
            "week" => return r(days(mon, -7), days(mon, -1)),
            "weekend" => {
                let sat = days(mon, if this { 5 } else { -2 });
                return r(sat, days(sat, 1));
            }
            "month" if this => return r(Date::new(t.year(), t.month(), 1)?, t),
            "month" if past => return r(days(t, -29), t),
            "month" => {
                let (y, m) = months_back(t, 1)?;
                let (a, b) = month_range(y, m)?;
                return r(a, b);
            }
            "year" if this => return r(Date::new(t.year(), 1, 1)?, t),
            "year" if past => return r(days(t, -364), t),
            "year" => {
                let y = t.year() - 1;
                return r(Date::new(y, 1, 1)?, Date::new(y, 12, 31)?);
            }
            _ => {}
        }
        if let Some(wd) = weekday(next) {
            let d = if this {
                days(mon, i64::from(wd))
            } else {
                self.weekday_before(wd)
            };
            return r(d, d);
        }
        if let Some((m, _)) = month(next) {
            // `this May` is this year's; `last May` the latest May before
            // this month.
            let y = if this || m < t.month() {
                t.year()
            } else {
                t.year() - 1
            };
            let (a, b) = month_range(y, m)?;
            return r(a, b);
        }
        if which == "this" {
            return None;
        }
        let (amount, k) = self.amount(i + 1)?;
        let n = amount.n();
        let first = match self.w(i + 1 + k) {
            "day" | "days" => days(t, -(n - 1)),
            "week" | "weeks" => days(t, -(7 * n - 1)),
            "month" | "months" => {
                let (y, m) = months_back(t, n)?;
                let d = t.day().min(Date::new(y, m, 1)?.days_in_month());
                Date::new(y, m, d)?
            }
            _ => return None,
        };
        Some((k + 2, first, t))
    }

    /// A count starting at word `i` and the words it takes: a number or
    /// number word, `a couple (of)`, `a few`, `several`.
    fn amount(&self, i: usize) -> Option<(Amount, usize)> {
        let a = usize::from(matches!(self.w(i), "a" | "an"));
        let of = |k: usize| k + usize::from(self.w(i + k) == "of");
        match self.w(i + a) {
            "couple" => Some((Amount::Exact(2), of(a + 1))),
            "few" => Some((Amount::Few, a + 1)),
            "several" if a == 0 => Some((Amount::Few, 1)),
            // `a week`: `a` is the count; `a 3` is no count.
            _ if a == 1 => Some((Amount::Exact(1), 1)),
            w => Some((Amount::Exact(count(w)?), 1)),
        }
    }

    /// `N days|weeks|months ago`.
    fn ago(&self, i: usize) -> Option<(usize, Date, Date)> {
        let (amount, k) = self.amount(i)?;
        if self.w(i + k + 1) != "ago" {
            return None;
        }
        let (near, far) = amount.reach();
        let t = self.today;
        let used = k + 2;
        match self.w(i + k) {
            "day" | "days" => Some((used, days(t, -far), days(t, -near))),
            "week" | "weeks" => {
                let mon = monday_of(days(t, -7 * far));
                Some((used, mon, days(monday_of(days(t, -7 * near)), 6)))
            }
            "month" | "months" => {
                let (y, m) = months_back(t, far)?;
                let (a, _) = month_range(y, m)?;
                let (y, m) = months_back(t, near)?;
                let (_, b) = month_range(y, m)?;
                Some((used, a, b))
            }
            _ => None,
        }
    }

    /// `2026-05-03`, `2026/05/03`, `2026-05`.
    fn iso(&self, w: &str) -> Option<(usize, Date, Date)> {
        let sep = if w.contains('/') { '/' } else { '-' };
        let mut it = w.split(sep);
        let y = year(it.next()?)?;
        let m = it.next()?;
        if m.len() != 2 {
            return None;
        }
        let m: u32 = m.parse().ok()?;
        match it.next() {
            None => {
                let (a, b) = month_range(y, m)?;
                Some((1, a, b))
            }
            Some(d) if d.len() == 2 && it.next().is_none() => {
                let d = Date::new(y, m, d.parse().ok()?)?;
                Some((1, d, d))
            }
            _ => None,
        }
    }

    /// `May 3 [2026]`, `3 May [2026]`, `May 2026`, `in March`, `January`.
    fn month_day(&self, i: usize, led: bool) -> Option<(usize, Date, Date)> {
        let t = self.today;
        // The most recent date with this month and day not after today.
        let recent = |m: u32, d: u32| {
            let this = Date::new(t.year(), m, d).filter(|x| *x <= t);
            this.or_else(|| Date::new(t.year() - 1, m, d))
        };
        if let Some((m, safe)) = month(self.w(i)) {
            if let Some(d) = day_of_month(self.w(i + 1)) {
                if let Some(y) = year(self.w(i + 2)) {
                    let x = Date::new(y, m, d)?;
                    return Some((3, x, x));
                }
                let x = recent(m, d)?;
                return Some((2, x, x));
            }
            if let Some(y) = year(self.w(i + 1)) {
                let (a, b) = month_range(y, m)?;
                return Some((2, a, b));
            }
            if safe || led {
                let y = if m <= t.month() {
                    t.year()
                } else {
                    t.year() - 1
                };
                let (a, b) = month_range(y, m)?;
                return Some((1, a, b));
            }
            return None;
        }
        let d = day_of_month(self.w(i))?;
        let (m, _) = month(self.w(i + 1))?;
        if let Some(y) = year(self.w(i + 2)) {
            let x = Date::new(y, m, d)?;
            return Some((3, x, x));
        }
        let x = recent(m, d)?;
        Some((2, x, x))
    }
}

/// Lowercased, surrounding punctuation and a possessive `'s` dropped.
fn normalize(word: &str) -> String {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric());
    let w = w
        .strip_suffix("'s")
        .or_else(|| w.strip_suffix("\u{2019}s"))
        .unwrap_or(w);
    w.to_lowercase()
}

/// The day meant by two time expressions next to each other (or with `of`
/// between): `a`, found first, and the one of `n` words from word `at`
/// spanning `first..=last`, when one is a weekday alone and the other a
/// calendar week (`last week`, `two weeks ago`, `this week`): that weekday
/// of that week, if the week has got to it.
fn day_of_week(
    p: &Parser,
    a: &Span,
    (at, n): (usize, usize),
    (first, last): (Date, Date),
) -> Option<Date> {
    let a_n = a.phrase.split(' ').count();
    let between = at.checked_sub(a.at + a_n)?;
    if between > 1 || between == 1 && p.w(at - 1) != "of" {
        return None;
    }
    // A weekday alone: its last word names the day, a preposition may come
    // before it (`on Tuesday`).
    let lone_day = |at: usize, n: usize, first: Date, last: Date| {
        let wd = weekday(p.w(at + n - 1))?;
        let led = n == 2 && matches!(p.w(at), "on" | "in" | "during" | "from");
        (first == last && (n == 1 || led)).then_some(wd)
    };
    let week = |first: Date, last: Date| {
        (first.weekday() == 0 && last >= first && last <= days(first, 6)).then_some((first, last))
    };
    let (wd, (monday, end)) = match lone_day(a.at, a_n, a.first, a.last) {
        Some(wd) => (wd, week(first, last)?),
        None => (lone_day(at, n, first, last)?, week(a.first, a.last)?),
    };
    let day = days(monday, i64::from(wd));
    (day <= end).then_some(day)
}

/// Find the time expressions of `query`, resolved against `today`.
pub fn parse(query: &str, today: Date) -> Parsed {
    let raw: Vec<&str> = query.split_whitespace().collect();
    let words: Vec<String> = raw.iter().map(|w| normalize(w)).collect();
    let p = Parser {
        words: &words,
        today,
    };
    let mut spans = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let found = if spans.len() == MAX_SPANS {
            None
        } else {
            match p.w(i) {
                "since" => p.expr(i + 1, true).map(|(n, a, _)| (n + 1, a, today)),
                "on" | "in" | "during" | "from" | "over" => {
                    p.expr(i + 1, true).map(|(n, a, b)| (n + 1, a, b))
                }
                _ => p.expr(i, false),
            }
        };
        match found {
            Some((n, first, last)) => {
                let mut span = Span {
                    phrase: String::new(),
                    at: i,
                    first,
                    last,
                };
                let mut start = i;
                // `Tuesday last week`, `last week on Tuesday`, `Monday of
                // last week`: that day of that week, one expression.
                if let Some(prev) = spans.last()
                    && let Some(day) = day_of_week(&p, prev, (i, n), (first, last))
                {
                    start = prev.at;
                    span = Span {
                        first: day,
                        last: day,
                        at: start,
                        ..span
                    };
                    spans.pop();
                }
                span.phrase = raw[start..i + n]
                    .iter()
                    .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                    .collect::<Vec<_>>()
                    .join(" ");
                if start < i {
                    // An `of` between them belonged to the expression.
                    rest.retain(|&(at, _)| at < start);
                }
                spans.push(span);
                i += n;
            }
            None => {
                rest.push((i, raw[i].to_string()));
                i += 1;
            }
        }
    }
    Parsed { spans, words: rest }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        let p: Vec<u32> = s.split('-').map(|x| x.parse().unwrap()).collect();
        Date::new(p[0] as i32, p[1], p[2]).unwrap()
    }

    /// (query, today, the spans as "phrase first..last", the words left).
    fn check(query: &str, today: &str, spans: &[&str], words: &[&str]) {
        let got = parse(query, d(today));
        let shown: Vec<String> = got
            .spans
            .iter()
            .map(|s| format!("{} {}..{}", s.phrase, s.first, s.last))
            .collect();
        assert_eq!(shown, spans, "{query:?} on {today}");
        let left: Vec<&str> = got.words.iter().map(|(_, w)| w.as_str()).collect();
        assert_eq!(left, words, "{query:?} on {today}");
    }

    #[test]
    fn temporal_parsing_table() {
        // 2026-05-13 is a Wednesday; 2026-05-11 a Monday; 2026-03-01 a
        // Sunday; 2026-01-01 a Thursday.
        let wed = "2026-05-13";
        assert_eq!(d(wed).weekday(), 2);
        check("yesterday", wed, &["yesterday 2026-05-12..2026-05-12"], &[]);
        check("today", wed, &["today 2026-05-13..2026-05-13"], &[]);
        check(
            "what did we deploy last week?",
            wed,
            &["last week 2026-05-04..2026-05-10"],
            &["what", "did", "we", "deploy"],
        );
        check("this week", wed, &["this week 2026-05-11..2026-05-13"], &[]);
        check("past week", wed, &["past week 2026-05-07..2026-05-13"], &[]);
        check("on Monday", wed, &["on Monday 2026-05-11..2026-05-11"], &[]);
        check("Friday", wed, &["Friday 2026-05-08..2026-05-08"], &[]);
        check(
            "last Friday",
            wed,
            &["last Friday 2026-05-08..2026-05-08"],
            &[],
        );
        check(
            "this Friday",
            wed,
            &["this Friday 2026-05-15..2026-05-15"],
            &[],
        );
        check("in March", wed, &["in March 2026-03-01..2026-03-31"], &[]);
        check("march", wed, &[], &["march"]);
        check("may deploy", wed, &[], &["may", "deploy"]);
        check("in May", wed, &["in May 2026-05-01..2026-05-31"], &[]);
        check("last May", wed, &["last May 2025-05-01..2025-05-31"], &[]);
        check("in June", wed, &["in June 2025-06-01..2025-06-30"], &[]);
        check("January", wed, &["January 2026-01-01..2026-01-31"], &[]);
        check(
            "last month",
            wed,
            &["last month 2026-04-01..2026-04-30"],
            &[],
        );
        check(
            "this month",
            wed,
            &["this month 2026-05-01..2026-05-13"],
            &[],
        );
        check(
            "2026-05-03",
            wed,
            &["2026-05-03 2026-05-03..2026-05-03"],
            &[],
        );
        check(
            "on 2026/05/03,",
            wed,
            &["on 2026/05/03 2026-05-03..2026-05-03"],
            &[],
        );
        check("2026-04", wed, &["2026-04 2026-04-01..2026-04-30"], &[]);
        check("May 3", wed, &["May 3 2026-05-03..2026-05-03"], &[]);
        check(
            "May 3rd, 2025",
            wed,
            &["May 3rd 2025 2025-05-03..2025-05-03"],
            &[],
        );
        check("3 May", wed, &["3 May 2026-05-03..2026-05-03"], &[]);
        check("May 20", wed, &["May 20 2025-05-20..2025-05-20"], &[]);
        check("Feb 30", wed, &[], &["Feb", "30"]);
        check("Sept 2025", wed, &["Sept 2025 2025-09-01..2025-09-30"], &[]);
        check("in 2025", wed, &["in 2025 2025-01-01..2025-12-31"], &[]);
        check("2025", wed, &[], &["2025"]);
        check(
            "3 days ago",
            wed,
            &["3 days ago 2026-05-10..2026-05-10"],
            &[],
        );
        check(
            "a week ago",
            wed,
            &["a week ago 2026-05-04..2026-05-10"],
            &[],
        );
        check(
            "2 months ago",
            wed,
            &["2 months ago 2026-03-01..2026-03-31"],
            &[],
        );
        check(
            "last 3 days",
            wed,
            &["last 3 days 2026-05-11..2026-05-13"],
            &[],
        );
        check(
            "since Monday",
            wed,
            &["since Monday 2026-05-11..2026-05-13"],
            &[],
        );
        check(
            "since May 1",
            wed,
            &["since May 1 2026-05-01..2026-05-13"],
            &[],
        );
        check(
            "day before yesterday",
            wed,
            &["day before yesterday 2026-05-11..2026-05-11"],
            &[],
        );
        check(
            "yesterday's notes",
            wed,
            &["yesterday's 2026-05-12..2026-05-12"],
            &["notes"],
        );
        check(
            "last weekend",
            wed,
            &["last weekend 2026-05-09..2026-05-10"],
            &[],
        );
        check("recently", wed, &["recently 2026-04-30..2026-05-13"], &[]);
        check("Mondays last", wed, &[], &["Mondays", "last"]);
        // Any such day is no date; the same weekday alone is one.
        check(
            "can I release on a Friday",
            wed,
            &[],
            &["can", "I", "release", "on", "a", "Friday"],
        );
        check(
            "every Monday standup",
            wed,
            &[],
            &["every", "Monday", "standup"],
        );
        // A weekday next to a calendar week is that day of that week.
        check(
            "Tuesday last week",
            wed,
            &["Tuesday last week 2026-05-05..2026-05-05"],
            &[],
        );
        check(
            "what did we do on Thursday two weeks ago",
            wed,
            &["on Thursday two weeks ago 2026-04-30..2026-04-30"],
            &["what", "did", "we", "do"],
        );
        check(
            "deploys last week on Friday",
            wed,
            &["last week on Friday 2026-05-08..2026-05-08"],
            &["deploys"],
        );
        check(
            "Monday of last week",
            wed,
            &["Monday of last week 2026-05-04..2026-05-04"],
            &[],
        );
        // Not yet this week, or not next to each other: two expressions.
        check(
            "Friday this week",
            wed,
            &[
                "Friday 2026-05-08..2026-05-08",
                "this week 2026-05-11..2026-05-13",
            ],
            &[],
        );
        check(
            "Monday and last week",
            wed,
            &[
                "Monday 2026-05-11..2026-05-11",
                "last week 2026-05-04..2026-05-10",
            ],
            &["and"],
        );
        check(
            "release on Friday",
            wed,
            &["on Friday 2026-05-08..2026-05-08"],
            &["release"],
        );
        check(
            "deploy on Monday and on Friday",
            wed,
            &[
                "on Monday 2026-05-11..2026-05-11",
                "on Friday 2026-05-08..2026-05-08",
            ],
            &["deploy", "and"],
        );
        // On a Monday, `on Monday` is a week ago and `this Monday` today.
        let mon = "2026-05-11";
        check("on Monday", mon, &["on Monday 2026-05-04..2026-05-04"], &[]);
        check(
            "this Monday",
            mon,
            &["this Monday 2026-05-11..2026-05-11"],
            &[],
        );
        check("this week", mon, &["this week 2026-05-11..2026-05-11"], &[]);
        check("yesterday", mon, &["yesterday 2026-05-10..2026-05-10"], &[]);
        // Month and year boundaries.
        check(
            "yesterday",
            "2026-03-01",
            &["yesterday 2026-02-28..2026-02-28"],
            &[],
        );
        check(
            "yesterday",
            "2024-03-01",
            &["yesterday 2024-02-29..2024-02-29"],
            &[],
        );
        check(
            "last week",
            "2026-01-01",
            &["last week 2025-12-22..2025-12-28"],
            &[],
        );
        check(
            "last month",
            "2026-01-15",
            &["last month 2025-12-01..2025-12-31"],
            &[],
        );
        check(
            "last year",
            "2026-01-15",
            &["last year 2025-01-01..2025-12-31"],
            &[],
        );
        check(
            "in December",
            "2026-01-15",
            &["in December 2025-12-01..2025-12-31"],
            &[],
        );
        check(
            "Dec 31",
            "2026-01-01",
            &["Dec 31 2025-12-31..2025-12-31"],
            &[],
        );
        check(
            "past month",
            "2026-03-01",
            &["past month 2026-01-31..2026-03-01"],
            &[],
        );
        check(
            "last 2 months",
            "2026-03-31",
            &["last 2 months 2026-01-31..2026-03-31"],
            &[],
        );
        check(
            "last 1 months",
            "2026-03-31",
            &["last 1 months 2026-02-28..2026-03-31"],
            &[],
        );
    }

    #[test]
    fn weekends_nights_vague_counts_and_quarters() {
        // 2026-12-02 is a Wednesday: a week that crosses a month.
        let wed = "2026-12-02";
        assert_eq!(d(wed).weekday(), 2);
        check(
            "what broke over the weekend",
            wed,
            &["over the weekend 2026-11-28..2026-11-29"],
            &["what", "broke"],
        );
        check(
            "the weekend",
            "2026-11-28",
            &["the weekend 2026-11-28..2026-11-28"],
            &[],
        );
        check(
            "the weekend",
            "2026-11-29",
            &["the weekend 2026-11-28..2026-11-29"],
            &[],
        );
        check("weekend deploys", wed, &[], &["weekend", "deploys"]);
        check("the deploy", wed, &[], &["the", "deploy"]);
        check("the last deploy", wed, &[], &["the", "last", "deploy"]);
        check(
            "last night",
            wed,
            &["last night 2026-12-01..2026-12-02"],
            &[],
        );
        check(
            "the week before last",
            wed,
            &["the week before last 2026-11-16..2026-11-22"],
            &[],
        );
        check(
            "a couple of weeks ago",
            wed,
            &["a couple of weeks ago 2026-11-16..2026-11-22"],
            &[],
        );
        check(
            "couple days ago",
            wed,
            &["couple days ago 2026-11-30..2026-11-30"],
            &[],
        );
        check(
            "a few days ago",
            wed,
            &["a few days ago 2026-11-28..2026-11-30"],
            &[],
        );
        check(
            "a few weeks ago",
            wed,
            &["a few weeks ago 2026-11-02..2026-11-22"],
            &[],
        );
        check(
            "several months ago",
            wed,
            &["several months ago 2026-08-01..2026-10-31"],
            &[],
        );
        check(
            "the last few days",
            wed,
            &["the last few days 2026-11-30..2026-12-02"],
            &[],
        );
        check(
            "over the past couple of weeks",
            wed,
            &["over the past couple of weeks 2026-11-19..2026-12-02"],
            &[],
        );
        check("a few tests", wed, &[], &["a", "few", "tests"]);
        check(
            "a 3 days ago",
            wed,
            &["3 days ago 2026-11-29..2026-11-29"],
            &["a"],
        );
        check("Q3", wed, &["Q3 2026-07-01..2026-09-30"], &[]);
        check("q4", wed, &["q4 2026-10-01..2026-12-31"], &[]);
        check("Q3", "2026-05-13", &["Q3 2025-07-01..2025-09-30"], &[]);
        check(
            "in Q1 2025",
            wed,
            &["in Q1 2025 2025-01-01..2025-03-31"],
            &[],
        );
        check("Q5 q10", wed, &[], &["Q5", "q10"]);
        check(
            "last quarter",
            wed,
            &["last quarter 2026-07-01..2026-09-30"],
            &[],
        );
        check(
            "last quarter",
            "2026-02-10",
            &["last quarter 2025-10-01..2025-12-31"],
            &[],
        );
        check(
            "this quarter",
            wed,
            &["this quarter 2026-10-01..2026-12-02"],
            &[],
        );
        check(
            "past quarter",
            wed,
            &["past quarter 2026-09-03..2026-12-02"],
            &[],
        );
    }

    #[test]
    fn a_span_names_its_month_only_when_it_is_one_whole_month() {
        let wed = d("2026-05-13");
        let name = |q: &str| parse(q, wed).spans[0].month_name();
        assert_eq!(name("in March"), Some("march"));
        assert_eq!(name("last month"), Some("april"));
        assert_eq!(name("in April 2025"), Some("april"));
        assert_eq!(name("since January"), None);
        assert_eq!(name("last week"), None);
        assert_eq!(name("past month"), None);
        assert_eq!(name("2026-04-03"), None);
        // May is an English word too; this month is May.
        assert_eq!(name("this month"), None);
        assert_eq!(name("in May"), None);
    }

    #[test]
    fn spans_are_capped() {
        let q = "today ".repeat(MAX_SPANS + 3);
        let p = parse(&q, d("2026-05-13"));
        assert_eq!(p.spans.len(), MAX_SPANS);
        assert_eq!(p.words.len(), 3);
    }
}
