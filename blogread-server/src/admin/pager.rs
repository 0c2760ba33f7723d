//! Where a list page stands among its entries: the pager under the admin pages' lists (a
//! project's posts, images and links, a post's sections), with `Newer` and `Older` and
//! "first–last of total".

use minijinja::{Value, context};

/// The pager of a page that shows `shown` entries from `offset`, of `total`, `page` a page:
/// `first` and `last` (1-based; `first` is `offset` on an empty page), `newer` and `older`
/// (the offsets of the pages before and after, or none).
pub(super) fn pager(offset: u64, shown: u64, total: u64, page: u64) -> Value {
    let end = offset.saturating_add(shown);
    context! {
        total => total,
        first => if shown == 0 { offset } else { offset.saturating_add(1) },
        last => end,
        newer => (offset > 0).then(|| offset.saturating_sub(page)),
        older => (end < total).then_some(end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(pager: &Value) -> [Option<u64>; 5] {
        ["total", "first", "last", "newer", "older"].map(|name| {
            let value = pager.get_attr(name).expect("a field");
            (!value.is_none()).then(|| u64::try_from(value).expect("a number"))
        })
    }

    #[test]
    fn the_first_page_has_no_newer_and_the_last_no_older() {
        assert_eq!(
            fields(&pager(0, 50, 120, 50)),
            [Some(120), Some(1), Some(50), None, Some(50)]
        );
        assert_eq!(
            fields(&pager(50, 50, 120, 50)),
            [Some(120), Some(51), Some(100), Some(0), Some(100)]
        );
        assert_eq!(
            fields(&pager(100, 20, 120, 50)),
            [Some(120), Some(101), Some(120), Some(50), None]
        );
    }

    #[test]
    fn an_offset_past_the_end_shows_an_empty_page_that_leads_back() {
        assert_eq!(
            fields(&pager(500, 0, 120, 50)),
            [Some(120), Some(500), Some(500), Some(450), None]
        );
        assert_eq!(
            fields(&pager(u64::MAX, 0, 0, 50)),
            [
                Some(0),
                Some(u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX - 50),
                None
            ]
        );
        assert_eq!(
            fields(&pager(0, 0, 0, 50)),
            [Some(0), Some(0), Some(0), None, None]
        );
    }
}
