//! HTML as a browser builds it, to compare two pieces of HTML by what a browser would render:
//! the same elements (namespace, name, attributes), comments and text, in the same tree.
//!
//! Both sides are parsed with html5ever's tree builder (the HTML standard's parsing, scripting
//! enabled), so character references are decoded, markup is repaired and raw text is kept as
//! the browser keeps it; adjacent text is merged. White space is compared exactly, except where
//! a caller trims it.

use html5ever::tendril::TendrilSink;
use html5ever::{ParseOpts, QualName, local_name, ns, parse_document, parse_fragment};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

/// A node of the tree a browser builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// An element: namespace URL, local name, attributes sorted by name, children, and for
    /// `<template>` the content.
    Element {
        /// The namespace URL.
        namespace: String,
        /// The local name.
        name: String,
        /// `(name, value)`, sorted.
        attributes: Vec<(String, String)>,
        /// The children.
        children: Vec<Node>,
    },
    /// Text (adjacent text merged).
    Text(String),
    /// A comment.
    Comment(String),
}

impl Node {
    /// The element's attribute `name`, if this is an element that has it.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        match self {
            Node::Element { attributes, .. } => attributes
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }

    /// The element's children (none for text and comments).
    pub fn children(&self) -> &[Node] {
        match self {
            Node::Element { children, .. } => children,
            _ => &[],
        }
    }

    /// Whether this is the HTML element `name`.
    pub fn is_element(&self, tag: &str) -> bool {
        matches!(self, Node::Element { namespace, name, .. }
            if name == tag && namespace == "http://www.w3.org/1999/xhtml")
    }
}

/// `html` parsed as the content of a `<div>` in a page's body, as a browser parses a post put
/// into a page.
pub fn fragment(html: &str) -> Vec<Node> {
    let dom = parse_fragment(
        RcDom::default(),
        ParseOpts::default(),
        QualName::new(None, ns!(html), local_name!("div")),
        vec![],
        false,
    )
    .one(html);
    // The fragment's nodes are the children of the `<html>` root the parser makes.
    let document = dom.document.children.borrow();
    let root = document.first().expect("a fragment has a root");
    children(root)
}

/// The children of `<body>` in the whole page `html`.
pub fn body(html: &str) -> Vec<Node> {
    let dom = parse_document(RcDom::default(), ParseOpts::default()).one(html);
    let document = convert_children(&dom.document);
    let html = document
        .iter()
        .find(|n| n.is_element("html"))
        .expect("a page has <html>");
    html.children()
        .iter()
        .find(|n| n.is_element("body"))
        .expect("a page has <body>")
        .children()
        .to_vec()
}

/// The children of the first element (depth first) whose `class` attribute is `class`, in
/// `nodes`.
pub fn children_of_class<'a>(nodes: &'a [Node], class: &str) -> Option<&'a [Node]> {
    for node in nodes {
        if node.attribute("class") == Some(class) {
            return Some(node.children());
        }
        if let Some(found) = children_of_class(node.children(), class) {
            return Some(found);
        }
    }
    None
}

/// `nodes` with the white space at the very end removed: from the last text node in document
/// order (inside the last elements, as where a page's last newline lands when the post leaves
/// an element open), and the node itself when nothing is left. White space at the very end of
/// a post shows nowhere.
pub fn trim_end(mut nodes: Vec<Node>) -> Vec<Node> {
    trim_last(&mut nodes);
    nodes
}

fn trim_last(nodes: &mut Vec<Node>) {
    loop {
        match nodes.last_mut() {
            Some(Node::Text(text)) => {
                let trimmed = text.trim_end_matches(['\t', '\n', '\x0C', '\r', ' ']).len();
                text.truncate(trimmed);
                if !text.is_empty() {
                    return;
                }
                nodes.pop();
            }
            Some(Node::Element { children, .. }) => return trim_last(children),
            _ => return,
        }
    }
}

fn children(handle: &Handle) -> Vec<Node> {
    convert_children(handle)
}

fn convert_children(handle: &Handle) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    for child in handle.children.borrow().iter() {
        let Some(node) = convert(child) else { continue };
        if let (Node::Text(text), Some(Node::Text(last))) = (&node, out.last_mut()) {
            last.push_str(text);
            continue;
        }
        out.push(node);
    }
    out
}

fn convert(handle: &Handle) -> Option<Node> {
    Some(match &handle.data {
        NodeData::Text { contents } => Node::Text(contents.borrow().to_string()),
        NodeData::Comment { contents } => Node::Comment(contents.to_string()),
        NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } => {
            let mut attributes: Vec<(String, String)> = attrs
                .borrow()
                .iter()
                .map(|a| {
                    let prefix = a
                        .name
                        .prefix
                        .as_ref()
                        .map_or(String::new(), |p| format!("{p}:"));
                    (format!("{prefix}{}", a.name.local), a.value.to_string())
                })
                .collect();
            attributes.sort();
            let children = match template_contents.borrow().as_ref() {
                Some(content) => convert_children(content),
                None => convert_children(handle),
            };
            Node::Element {
                namespace: name.ns.to_string(),
                name: name.local.to_string(),
                attributes,
                children,
            }
        }
        NodeData::Document | NodeData::Doctype { .. } | NodeData::ProcessingInstruction { .. } => {
            return None;
        }
    })
}
