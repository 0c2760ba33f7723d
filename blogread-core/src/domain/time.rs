//! Timestamps: RFC 3339 in UTC with a `Z` suffix and whole seconds.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Serialize};

/// A string that is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("timestamp must be RFC 3339, e.g. 2026-11-21T09:30:00Z (got `{0}`)")]
pub struct TimestampError(pub String);

/// A point in time in UTC, at whole-second precision, so that what is stored, sorted and shown
/// is the same value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
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

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.0.timestamp()
    }

    /// The underlying chrono value.
    pub fn as_datetime(&self) -> DateTime<Utc> {
        self.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Secs, true))
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

    #[test]
    fn timestamp_rejects_non_rfc3339() {
        assert!(Timestamp::parse("21/11/2026").is_err());
        assert!(Timestamp::parse("2026-11-21").is_err());
    }
}
