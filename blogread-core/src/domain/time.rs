//! Timestamps: RFC 3339 in UTC with a `Z` suffix and whole seconds.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, SecondsFormat, TimeZone, Timelike, Utc};
use serde::{Deserialize, Serialize};

/// A string that is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("timestamp must be RFC 3339, e.g. 2026-11-21T09:30:00Z (got `{0}`)")]
pub struct TimestampError(pub String);

/// A point in time in UTC, at whole-second precision, so that what is stored, sorted and shown
/// is the same value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// The current time, truncated to the second.
    pub fn now() -> Self {
        Self::from_datetime(Utc::now())
    }

    /// Converts a date-time, dropping fractions of a second.
    pub fn from_datetime<Tz: TimeZone>(dt: DateTime<Tz>) -> Self {
        let utc = dt.with_timezone(&Utc);
        Self(
            DateTime::from_timestamp(utc.timestamp(), 0)
                .expect("a valid timestamp truncated to seconds stays valid"),
        )
    }

    /// A timestamp from seconds since the Unix epoch, or `None` when out of range.
    pub fn from_unix_seconds(seconds: i64) -> Option<Self> {
        DateTime::from_timestamp(seconds, 0).map(Self)
    }

    /// Parses RFC 3339 with any offset, converting to UTC and dropping fractions of a second.
    pub fn parse(s: &str) -> Result<Self, TimestampError> {
        DateTime::parse_from_rfc3339(s)
            .map(Self::from_datetime)
            .map_err(|_| TimestampError(s.to_owned()))
    }

    /// Parses the value of the request field `field` as [`Timestamp::parse`] does; a value
    /// that is not RFC 3339 is a [`FieldError`](crate::error::FieldError) naming the field
    /// (`published_at: must be an RFC 3339 timestamp such as 2026-11-21T09:30:00Z (got
    /// `yesterday`)`), quoting at most the first 40 characters of what was sent.
    pub fn parse_field(field: &'static str, s: &str) -> Result<Self, crate::error::FieldError> {
        Self::parse(s).map_err(|_| {
            let mut shown: String = s.chars().take(40).collect();
            if shown.len() < s.len() {
                shown.push('…');
            }
            crate::error::FieldError::new(
                field,
                format!(
                    "must be an RFC 3339 timestamp such as 2026-11-21T09:30:00Z (got `{shown}`)"
                ),
            )
        })
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.0.timestamp()
    }

    /// The underlying chrono value.
    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.0
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for years 0 to 9999 (chrono's calendar, digits laid out
    /// here): chrono's general RFC 3339 formatter, with an allocation per value, was a
    /// seventh of the CPU of a 5000-entry sitemap built without the response cache. Other
    /// years go through chrono (`None`).
    fn rfc3339(&self) -> Option<[u8; 20]> {
        let (date, time) = (self.0.date_naive(), self.0.time());
        let year = u32::try_from(date.year()).ok().filter(|y| *y <= 9999)?;
        let mut out = *b"0000-00-00T00:00:00Z";
        let mut put = |at: usize, value: u32, digits: usize| {
            let mut value = value;
            for i in (at..at + digits).rev() {
                out[i] = b'0' + (value % 10) as u8;
                value /= 10;
            }
        };
        put(0, year, 4);
        put(5, date.month(), 2);
        put(8, date.day(), 2);
        put(11, time.hour(), 2);
        put(14, time.minute(), 2);
        put(17, time.second(), 2);
        Some(out)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rfc3339() {
            // ASCII digits and separators only.
            Some(bytes) => f.write_str(std::str::from_utf8(&bytes).map_err(|_| fmt::Error)?),
            None => f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Secs, true)),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.rfc3339() {
            Some(bytes) => serializer
                .serialize_str(std::str::from_utf8(&bytes).map_err(serde::ser::Error::custom)?),
            None => serializer.serialize_str(&self.to_string()),
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Timestamp {
    type Err = TimestampError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for Timestamp {
    type Error = TimestampError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Timestamp> for String {
    fn from(t: Timestamp) -> String {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_render_utc_with_z_and_whole_seconds() {
        let t = Timestamp::parse("2026-11-21T10:30:00.987+01:00").unwrap();
        assert_eq!(t.to_string(), "2026-11-21T09:30:00Z");
    }

    proptest::proptest! {
        /// The fast layout writes exactly what chrono's RFC 3339 formatter writes, over the
        /// whole range of timestamps (years beyond 9999 and before 0 go through chrono).
        #[test]
        fn fast_rfc3339_equals_chronos(seconds in -100_000_000_000i64..300_000_000_000i64) {
            if let Some(t) = Timestamp::from_unix_seconds(seconds) {
                let chrono = t.0.to_rfc3339_opts(SecondsFormat::Secs, true);
                proptest::prop_assert_eq!(t.to_string(), chrono.clone());
                proptest::prop_assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{chrono}\""));
            }
        }
    }

    #[test]
    fn timestamp_rejects_non_rfc3339() {
        assert!(Timestamp::parse("21/11/2026").is_err());
        assert!(Timestamp::parse("2026-11-21").is_err());
    }

    #[test]
    fn a_field_that_is_not_a_timestamp_is_named_with_a_short_quote_of_the_value() {
        assert_eq!(
            Timestamp::parse_field("published_at", "yesterday")
                .unwrap_err()
                .to_string(),
            "published_at: must be an RFC 3339 timestamp such as 2026-11-21T09:30:00Z (got `yesterday`)"
        );
        let long = "x".repeat(5000);
        let err = Timestamp::parse_field("published_at", &long).unwrap_err();
        assert!(err.rule.len() < 200, "{}", err.rule);
        assert!(err.rule.contains(&format!("`{}…`", "x".repeat(40))));
        assert_eq!(
            Timestamp::parse_field("published_at", "2026-11-21T10:30:00+01:00").unwrap(),
            Timestamp::parse("2026-11-21T09:30:00Z").unwrap()
        );
    }
}
