//! Changes to a body, collected while it is read and applied in one pass.

use std::collections::HashSet;

/// Where an insertion goes among others at the same offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Order {
    /// Part of the text before the offset (the `!` of a comment's `--!>`).
    Text,
    /// A generator's escape delimiter (`/*`, `*/`), which must sit right next to the
    /// generator's own delimiter.
    Escape,
}

#[derive(Debug)]
struct Edit {
    at: usize,
    remove: usize,
    insert: &'static str,
    order: Order,
}

/// Insertions and replacements, by byte offset in the body they were found in.
#[derive(Debug, Default)]
pub(crate) struct Edits {
    list: Vec<Edit>,
    /// The offsets of the bytes replaced.
    replaced: HashSet<usize>,
}

impl Edits {
    /// Inserts `text` before the byte at `at`.
    pub(crate) fn insert(&mut self, at: usize, text: &'static str, order: Order) {
        self.list.push(Edit {
            at,
            remove: 0,
            insert: text,
            order,
        });
    }

    /// Writes `text` in place of the one byte at `at` (always an ASCII byte).
    pub(crate) fn replace_byte(&mut self, at: usize, text: &'static str) {
        self.list.push(Edit {
            at,
            remove: 1,
            insert: text,
            order: Order::Text,
        });
        self.replaced.insert(at);
    }

    /// Whether the byte at `at` is replaced.
    pub(crate) fn replaces(&self, at: usize) -> bool {
        self.replaced.contains(&at)
    }

    /// `body` with the edits made. At one offset, insertions come before a replacement, in
    /// [`Order`].
    pub(crate) fn apply(mut self, body: &str) -> String {
        self.list
            .sort_by_key(|edit| (edit.at, edit.remove > 0, edit.order));
        let extra: usize = self.list.iter().map(|edit| edit.insert.len()).sum();
        let mut out = String::with_capacity(body.len() + extra);
        let mut copied = 0;
        for edit in &self.list {
            debug_assert!(edit.at >= copied, "overlapping edits: {:?}", self.list);
            out.push_str(&body[copied..edit.at]);
            out.push_str(edit.insert);
            copied = edit.at + edit.remove;
        }
        out.push_str(&body[copied..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_come_before_a_replacement_and_in_order() {
        let mut edits = Edits::default();
        edits.insert(3, "*/", Order::Escape);
        edits.insert(3, "!", Order::Text);
        edits.replace_byte(0, "&#123;");
        edits.insert(0, "[", Order::Text);
        assert!(edits.replaces(0) && !edits.replaces(3));
        assert_eq!(edits.apply("{--> x"), "[&#123;--!*/> x");
    }
}
