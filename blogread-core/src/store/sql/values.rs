//! The values the SQL store binds and reads back, the same on both backends: the id column
//! ([`DbId`]), what a bound or read value must be ([`Value`], the one place the store's
//! value bounds are written), and the plain parameters of a statement ([`Bind`]), which sqlx
//! and a backend's own driver can both bind.

use sqlx::query::QueryAs;
use sqlx::{Database, Decode, Encode, FromRow, Type};
use uuid::Uuid;

use crate::domain::{AdminTokenId, BlogId, CredentialId, DeliveryId, ProjectId};

/// A value the SQL store binds as a parameter and reads back from a column, encoded and
/// decoded the database's way: ids ([`DbId`]), integers, booleans and owned text, and their
/// `Option`s. The store's generic code bounds each of its value types by this, instead of by
/// sqlx's higher-ranked traits one by one; each backend lists its value types once below.
pub(crate) trait Value<DB: Database>:
    for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB> + Type<DB> + Send
{
}

/// A row type the SQL store reads with sqlx from database `DB` (by the blanket impl, every
/// `FromRow` type that can cross threads): the one statement of the row bound that sqlx's
/// `query_as` asks, for the store's generic reads.
pub(crate) trait SqlRow<DB: Database>: for<'r> FromRow<'r, DB::Row> + Send + Unpin {}

impl<DB: Database, R> SqlRow<DB> for R where R: for<'r> FromRow<'r, DB::Row> + Send + Unpin {}

/// The types that are [`Value`]s of database `$db`.
macro_rules! values_of {
    ($db:ty) => {
        impl Value<$db> for DbId {}
        impl Value<$db> for Option<DbId> {}
        impl Value<$db> for i64 {}
        impl Value<$db> for Option<i64> {}
        impl Value<$db> for i32 {}
        impl Value<$db> for bool {}
        impl Value<$db> for String {}
        impl Value<$db> for Option<String> {}
    };
}
#[cfg(feature = "sqlite")]
values_of!(sqlx::Sqlite);
#[cfg(feature = "postgres")]
values_of!(sqlx::Postgres);

/// An id column: UUID text (lower-case, hyphenated) on SQLite, `uuid` on PostgreSQL. Both
/// order like the UUID's bytes, which is the id tie-break of every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DbId(pub(crate) Uuid);

#[cfg(feature = "sqlite")]
mod sqlite_id {
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::sqlite::{SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};
    use sqlx::{Decode, Encode, Sqlite, Type};

    use super::DbId;

    impl Type<Sqlite> for DbId {
        fn type_info() -> SqliteTypeInfo {
            <String as Type<Sqlite>>::type_info()
        }
        fn compatible(ty: &SqliteTypeInfo) -> bool {
            <String as Type<Sqlite>>::compatible(ty)
        }
    }

    impl Encode<'_, Sqlite> for DbId {
        fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
            <String as Encode<Sqlite>>::encode(self.0.hyphenated().to_string(), buf)
        }
    }

    impl<'r> Decode<'r, Sqlite> for DbId {
        fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
            let text = <&str as Decode<Sqlite>>::decode(value)?;
            Ok(DbId(uuid::Uuid::parse_str(text)?))
        }
    }

    /// Read by a backend's own driver (`store/sqlite/quick.rs`) as sqlx reads it: the
    /// hyphenated text of the uuid.
    impl rusqlite::types::FromSql for DbId {
        fn column_result(
            value: rusqlite::types::ValueRef<'_>,
        ) -> rusqlite::types::FromSqlResult<Self> {
            let text = value.as_str()?;
            uuid::Uuid::parse_str(text)
                .map(DbId)
                .map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
        }
    }
}

#[cfg(feature = "postgres")]
mod postgres_id {
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
    use sqlx::{Decode, Encode, Postgres, Type};

    use super::DbId;

    impl Type<Postgres> for DbId {
        fn type_info() -> PgTypeInfo {
            <uuid::Uuid as Type<Postgres>>::type_info()
        }
    }

    impl Encode<'_, Postgres> for DbId {
        fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
            <uuid::Uuid as Encode<Postgres>>::encode_by_ref(&self.0, buf)
        }
    }

    impl<'r> Decode<'r, Postgres> for DbId {
        fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
            Ok(DbId(<uuid::Uuid as Decode<Postgres>>::decode(value)?))
        }
    }
}

macro_rules! db_id_from {
    ($($t:ty),*) => {$(
        impl From<$t> for DbId {
            fn from(id: $t) -> Self {
                DbId(id.as_uuid())
            }
        }
    )*};
}
db_id_from!(
    ProjectId,
    BlogId,
    CredentialId,
    AdminTokenId,
    DeliveryId,
    crate::domain::FiringId,
    crate::domain::MediaId
);

/// One parameter of a public read, in `$N` order.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Bind<'a> {
    /// An id.
    Id(DbId),
    /// An integer.
    Int(i64),
    /// A text.
    Text(&'a str),
}

/// Binds `binds` in order to an sqlx query returning rows of `R`.
pub(crate) fn bind_all<'q, DB, R>(
    mut query: QueryAs<'q, DB, R, DB::Arguments>,
    binds: &[Bind<'q>],
) -> QueryAs<'q, DB, R, DB::Arguments>
where
    DB: Database,
    DbId: Value<DB>,
    i64: Value<DB>,
    String: Value<DB>,
{
    for bind in binds {
        query = match *bind {
            Bind::Id(id) => query.bind(id),
            Bind::Int(n) => query.bind(n),
            Bind::Text(text) => query.bind(text.to_owned()),
        };
    }
    query
}

#[cfg(feature = "sqlite")]
mod sqlite {
    use rusqlite::types::{ToSqlOutput, Value, ValueRef};

    use super::Bind;

    impl rusqlite::ToSql for Bind<'_> {
        fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
            Ok(match *self {
                // As sqlx's encoding of a `DbId` for SQLite: the hyphenated text.
                Bind::Id(id) => ToSqlOutput::Owned(Value::Text(id.0.hyphenated().to_string())),
                Bind::Int(n) => ToSqlOutput::Owned(Value::Integer(n)),
                Bind::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
            })
        }
    }
}
