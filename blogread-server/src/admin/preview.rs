//! The preview of a post on its admin page. Authors are not trusted on the admin origin: the
//! preview shows an author's markup to the operator, so it is made able to do nothing but
//! show, twice over:
//!
//! - the body is cleaned by the core's allowlist sanitiser
//!   ([`blogread_core::sanitise::preview_html`]): no `meta`, `base`, `link`, `form` or any
//!   form control, `iframe`, `object`, `embed`, `style` or `script`; URLs only relative,
//!   `http`, `https` and `mailto`; links get `rel="noopener noreferrer"`;
//! - the cleaned body is served as a document of its own ([`document`]) that the post page
//!   shows in an `<iframe sandbox>`, with a `Content-Security-Policy` ([`CSP`]) that sandboxes
//!   it again when opened directly: even markup the sanitiser let through cannot run script,
//!   submit a form, or navigate the page around it.
//!
//! The preview may therefore look different from the site (no author style sheets, no
//! embeds); the public API still returns the author's HTML byte for byte.

/// The `Content-Security-Policy` of the preview document: a sandbox (a unique origin, no
/// script, no forms, no top navigation, no pop-ups), nothing loaded but images over https
/// (or inline data) and inline styles, framed by the admin pages only.
pub const CSP: &str = "sandbox; default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; \
     form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/// The preview document of a post whose resolved body is `html`: the sanitised body in a page
/// of its own, with a style sheet of a few lines inline (the frame's policy allows inline
/// styles only).
pub fn document(html: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Preview</title>\
         <style>body{{font:16px/1.5 system-ui,sans-serif;color:#1b1f24;margin:.75rem;\
         overflow-wrap:anywhere}}img{{max-width:100%;height:auto}}pre{{overflow:auto}}</style>\
         </head><body>{}</body></html>",
        blogread_core::sanitise::preview_html(html)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_document_wraps_the_sanitised_body() {
        let page = document("<p>x</p><script>alert(1)</script>");
        assert!(page.starts_with("<!doctype html>"));
        assert!(page.contains("<body><p>x</p></body>"), "{page}");
        assert!(!page.contains("<script"), "{page}");
    }

    #[test]
    fn the_preview_policy_is_a_sandbox_that_loads_nothing_but_images_and_inline_styles() {
        for part in [
            "sandbox;",
            "default-src 'none'",
            "img-src https: data:",
            "style-src 'unsafe-inline'",
            "frame-ancestors 'self'",
        ] {
            assert!(CSP.contains(part), "{part}");
        }
        assert!(!CSP.contains("allow-"), "no sandbox exception");
    }
}
