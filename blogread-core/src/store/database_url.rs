//! Database URLs as logs and error messages may show them.

/// `url` without its password, wherever it is written: the userinfo's (`user:PASSWORD@`) and
/// any query parameter whose name holds `password` (`?password=`, `&sslpassword=`) become
/// `***`. Everything else is kept as written, so the operator recognises the URL.
///
/// ```
/// use blogread_core::store::redact_database_url;
/// assert_eq!(
///     redact_database_url("postgres://app:s3cret@db/blog?password=s3cret&sslmode=disable"),
///     "postgres://app:***@db/blog?password=***&sslmode=disable"
/// );
/// ```
pub fn redact_database_url(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut out = String::with_capacity(url.len());
    match base.split_once("://") {
        Some((scheme, rest)) => {
            out.push_str(scheme);
            out.push_str("://");
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            match authority.rsplit_once('@') {
                Some((userinfo, host)) => {
                    match userinfo.split_once(':') {
                        Some((user, _password)) => {
                            out.push_str(user);
                            out.push_str(":***");
                        }
                        None => out.push_str(userinfo),
                    }
                    out.push('@');
                    out.push_str(host);
                }
                None => out.push_str(authority),
            }
            out.push_str(path);
        }
        None => out.push_str(base),
    }
    if let Some(query) = query {
        out.push('?');
        for (i, pair) in query.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            match pair.split_once('=') {
                Some((name, _value)) if is_password_parameter(name) => {
                    out.push_str(name);
                    out.push_str("=***");
                }
                _ => out.push_str(pair),
            }
        }
    }
    out
}

fn is_password_parameter(name: &str) -> bool {
    let decoded: String = url::form_urlencoded::parse(name.as_bytes())
        .map(|(k, _)| k.into_owned())
        .collect();
    decoded.to_ascii_lowercase().contains("password")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_userinfo_password_is_hidden() {
        assert_eq!(
            redact_database_url("postgres://u:secret@db/blogread"),
            "postgres://u:***@db/blogread"
        );
        assert_eq!(
            redact_database_url("postgresql://u:p@ss:word@db:5432/b"),
            "postgresql://u:***@db:5432/b"
        );
    }

    #[test]
    fn a_password_query_parameter_is_hidden() {
        assert_eq!(
            redact_database_url("postgres://db/b?user=u&password=secret&sslmode=disable"),
            "postgres://db/b?user=u&password=***&sslmode=disable"
        );
        assert_eq!(
            redact_database_url("postgres:///b?host=/run&SSLPASSWORD=x&pass%77ord=y"),
            "postgres:///b?host=/run&SSLPASSWORD=***&pass%77ord=***"
        );
    }

    #[test]
    fn urls_without_a_password_are_kept() {
        for url in [
            "sqlite://blogread.db",
            "sqlite:///var/lib/blogread/db.sqlite?mode=rwc",
            "postgres://blogread@127.0.0.1:5432/blogread",
            "memory:",
            "not a url",
        ] {
            assert_eq!(redact_database_url(url), url);
        }
    }
}
