//! Hugo's content policy (`security.allowContent`) and the `.html` content files the Hugo
//! export writes.
//!
//! Hugo builds only content files whose media type the site's `security.allowContent` allows,
//! and its default, `['! ^text/html$', '! ^text/org$']`, denies `text/html`: on a fresh
//! `hugo new site` every exported `<slug>.html` stops the build ("access denied: "text/html"
//! is not whitelisted"). HTML content files are still the right output: Hugo's Markdown drops
//! raw HTML unless the site sets `markup.goldmark.renderer.unsafe`, and content adapters
//! (`_content.gotmpl`) with media type `text/html` are denied by the same policy. So, before an
//! export for Hugo writes anything, the export finds the site's configuration and reads the
//! policy the way Hugo does:
//!
//! - The site is the first folder, from the output folder upwards, that holds a configuration
//!   file (`hugo.toml`, `hugo.yaml`, `hugo.yml`, `hugo.json`, `config.toml`, `config.yaml`,
//!   `config.yml`, `config.json`: Hugo reads the first of these only) or a `config/_default/`
//!   folder. Hugo reads, in this order, each overriding the one before: that file, then the
//!   `hugo.*`, `config.*` and `security.*` files of `config/_default/` and then of
//!   `config/production/` (what `hugo` builds), each folder's files by name. Keys are
//!   case-insensitive; a `security.*` file holds the security keys at its top level.
//! - The policy allows `text/html` (Hugo's rules: patterns are regular expressions; one that
//!   starts with `! ` denies what it matches; when any other pattern exists, a type must match
//!   one of them; an empty list, or one holding `none`, allows nothing): the export goes on.
//! - No policy anywhere (Hugo's default): the export stops before writing anything, with an
//!   error naming the file and printing the lines to add, `allowContent = ['! ^text/org$']`
//!   under `[security]`, which allows HTML and keeps Hugo's other default (Org files denied).
//!   With [`ExportOptions::configure_hugo`](super::ExportOptions::configure_hugo) (the CLI's
//!   `--configure-hugo`) the export adds them itself, to a TOML file only, keeping the file's
//!   comments and layout.
//! - A policy that denies `text/html`: the export stops and prints the policy to use
//!   instead; it never changes a policy the user wrote, and never edits YAML or JSON.
//! - No configuration at all: the export goes on (the folder may be mounted into a site
//!   elsewhere) and reports [`HugoSite::NotFound`], whose message prints the lines.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The pattern the export asks for: every content type but Org (Hugo's other default denial),
/// so `text/html` and `text/markdown` are allowed.
pub const ALLOW_CONTENT: &str = "! ^text/org$";

/// The media type of the files the Hugo export writes.
const HTML: &str = "text/html";

/// The configuration files at a site's root, in the order Hugo looks for them (it reads the
/// first one found).
const ROOT_FILES: [&str; 8] = [
    "hugo.toml",
    "hugo.yaml",
    "hugo.yml",
    "hugo.json",
    "config.toml",
    "config.yaml",
    "config.yml",
    "config.json",
];

/// The folders of `config/` that `hugo` (a production build) reads, in order.
const CONFIG_DIRS: [&str; 2] = ["_default", "production"];

/// The syntax of a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// `.toml`
    Toml,
    /// `.yaml` or `.yml`
    Yaml,
    /// `.json`
    Json,
}

impl Syntax {
    fn of(path: &Path) -> Option<Syntax> {
        match path.extension()?.to_str()? {
            "toml" => Some(Syntax::Toml),
            "yaml" | "yml" => Some(Syntax::Yaml),
            "json" => Some(Syntax::Json),
            _ => None,
        }
    }
}

/// One configuration file Hugo reads.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ConfigFile {
    path: PathBuf,
    syntax: Syntax,
    /// A `security.*` file of a configuration folder: its top-level keys are the security keys.
    security_file: bool,
}

impl ConfigFile {
    fn new(path: PathBuf, security_file: bool) -> Option<Self> {
        Some(Self {
            syntax: Syntax::of(&path)?,
            path,
            security_file,
        })
    }
}

/// What the export found out about the Hugo site it writes into (see the
/// [module docs](self)); kept in [`ExportReport::hugo`](super::ExportReport::hugo).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HugoSite {
    /// No Hugo configuration in the output folder or any folder above it. The files were
    /// written; a site that reads them needs the policy ([`HugoSite::message`] says which).
    NotFound {
        /// The output folder the search started from.
        out: PathBuf,
    },
    /// The site's policy allows HTML content files.
    Allowed {
        /// The file whose `allowContent` Hugo uses.
        file: PathBuf,
    },
    /// The site had no policy; the export added `allowContent = ['! ^text/org$']` to it.
    Configured {
        /// The file the export changed.
        file: PathBuf,
    },
    /// A pattern of the site's policy is not a regular expression this check understands
    /// (Go's syntax differs in corners), so whether Hugo accepts the files was not checked.
    Unchecked {
        /// The file whose `allowContent` Hugo uses.
        file: PathBuf,
        /// The pattern.
        pattern: String,
    },
}

impl HugoSite {
    /// What to tell the user (a warning or a note), or `None` when there is nothing to say.
    pub fn message(&self) -> Option<String> {
        match self {
            HugoSite::Allowed { .. } => None,
            HugoSite::NotFound { out } => Some(format!(
                "warning: no Hugo configuration ({} or config/_default/) in {} or any folder \
                 above it, so the site's content policy was not checked. Hugo builds the \
                 exported .html files only if the site's configuration has these lines:\n\n\
                 {}\n",
                ROOT_FILES.join(", "),
                out.display(),
                lines(Syntax::Toml, Placement::NewTable),
            )),
            HugoSite::Configured { file } => Some(format!(
                "note: added allowContent = ['{ALLOW_CONTENT}'] under [security] in {} so \
                 that Hugo builds HTML content files (Org files stay denied, as by default)",
                file.display()
            )),
            HugoSite::Unchecked { file, pattern } => Some(format!(
                "warning: could not read the security.allowContent pattern `{pattern}` in {} \
                 as a regular expression; whether Hugo builds the exported .html files was \
                 not checked",
                file.display()
            )),
        }
    }
}

/// Why an export for Hugo stopped before writing anything (see the [module docs](self)).
#[derive(Debug)]
#[non_exhaustive]
pub enum HugoConfigError {
    /// The site sets no `security.allowContent`, and Hugo's default denies HTML content files.
    Missing {
        /// The file to add the lines to (it may not exist yet: `config/_default/security.toml`).
        file: PathBuf,
        /// The lines, in the file's syntax.
        lines: String,
        /// Where the lines go, in words.
        placement: String,
        /// The export was asked to add them (`--configure-hugo`) but the file is not TOML.
        configure_refused: bool,
    },
    /// The site's `security.allowContent` denies `text/html`.
    Denies {
        /// The file whose `allowContent` Hugo uses.
        file: PathBuf,
        /// Its patterns.
        patterns: Vec<String>,
        /// The setting to use instead, in the file's syntax.
        replacement: String,
    },
    /// A configuration file could not be read or parsed, or its policy has the wrong type.
    Invalid {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

impl fmt::Display for HugoConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HugoConfigError::Missing {
                file,
                lines,
                placement,
                configure_refused,
            } => {
                write!(
                    f,
                    "Hugo would refuse the exported .html files: the site's configuration sets no \
                     security.allowContent, and Hugo's default (['! ^text/html$', '! ^text/org$']) \
                     denies HTML content files. Add {placement} {}:\n\n{lines}\n\n\
                     (this allows HTML content files and keeps Org files denied, as by default), ",
                    file.display()
                )?;
                if *configure_refused {
                    write!(
                        f,
                        "by hand: --configure-hugo edits TOML files only (it keeps their comments \
                         and layout). "
                    )?;
                } else {
                    write!(f, "or export again with --configure-hugo to add them. ")?;
                }
                write!(f, "Nothing was written.")
            }
            HugoConfigError::Denies {
                file,
                patterns,
                replacement,
            } => write!(
                f,
                "Hugo would refuse the exported .html files: security.allowContent in {} ({}) does \
                 not allow text/html. Change that setting to:\n\n{replacement}\n\n\
                 (the export never changes a policy that is set, --configure-hugo included). \
                 Nothing was written.",
                file.display(),
                toml_list(patterns),
            ),
            HugoConfigError::Invalid { file, reason } => write!(
                f,
                "could not read the Hugo configuration {}: {reason}; fix it (hugo would fail \
                 on it too), then export again",
                file.display()
            ),
        }
    }
}

impl std::error::Error for HugoConfigError {}

/// What the export does about the site's configuration.
#[derive(Debug)]
pub(crate) enum Plan {
    /// Nothing to change.
    Ready(HugoSite),
    /// Add the policy to this TOML file right before the first content file is written.
    Configure(PathBuf, bool),
}

impl Plan {
    /// Carries the plan out: adds the policy when asked to (reading the file again, so an edit
    /// made meanwhile is kept).
    pub(crate) fn apply(self) -> Result<HugoSite, HugoConfigError> {
        match self {
            Plan::Ready(site) => Ok(site),
            Plan::Configure(path, security_file) => {
                let text = read_optional(&path)?;
                let new =
                    add_policy(&text, security_file).map_err(|reason| invalid(&path, reason))?;
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| invalid(&path, e.to_string()))?;
                }
                std::fs::write(&path, new).map_err(|e| invalid(&path, e.to_string()))?;
                Ok(HugoSite::Configured { file: path })
            }
        }
    }
}

fn invalid(path: &Path, reason: impl Into<String>) -> HugoConfigError {
    HugoConfigError::Invalid {
        file: path.to_owned(),
        reason: reason.into(),
    }
}

/// Decides, writing nothing, whether Hugo will build the `.html` files exported into `out`,
/// and what to do when it will not (see the [module docs](self)). `configure`: the user asked
/// the export to add the policy where none is set.
pub(crate) fn check(out: &Path, configure: bool) -> Result<Plan, HugoConfigError> {
    let out_abs = absolute(out).map_err(|e| invalid(out, e.to_string()))?;
    let Some(site) = find_site(&out_abs).map_err(|e| invalid(out, e.to_string()))? else {
        return Ok(Plan::Ready(HugoSite::NotFound {
            out: out.to_owned(),
        }));
    };
    decide(&site, configure)
}

/// A site's root and the configuration files Hugo reads there, in order.
#[derive(Debug)]
struct Site {
    root: PathBuf,
    /// The configuration file at the root, if any.
    main: Option<ConfigFile>,
    /// Every file Hugo reads, in order: the later override the earlier.
    files: Vec<ConfigFile>,
}

/// The first folder from `out` upwards that is a Hugo site, with its configuration files.
fn find_site(out: &Path) -> io::Result<Option<Site>> {
    for dir in out.ancestors() {
        let main = ROOT_FILES
            .iter()
            .map(|name| dir.join(name))
            .find(|path| path.is_file())
            .and_then(|path| ConfigFile::new(path, false));
        let default_dir = dir.join("config").join(CONFIG_DIRS[0]);
        if main.is_none() && !default_dir.is_dir() {
            continue;
        }
        let mut files: Vec<ConfigFile> = main.iter().cloned().collect();
        for env in CONFIG_DIRS {
            let folder = dir.join("config").join(env);
            if !folder.is_dir() {
                continue;
            }
            let mut names = Vec::new();
            for entry in std::fs::read_dir(&folder)? {
                let name = entry?.file_name();
                let Some(name) = name.to_str() else { continue };
                let Some((stem, ext)) = name.split_once('.') else {
                    continue;
                };
                if matches!(stem, "hugo" | "config" | "security")
                    && matches!(ext, "toml" | "yaml" | "yml" | "json")
                {
                    names.push((name.to_owned(), stem == "security"));
                }
            }
            names.sort();
            files.extend(
                names
                    .into_iter()
                    .filter_map(|(name, sec)| ConfigFile::new(folder.join(name), sec)),
            );
        }
        return Ok(Some(Site {
            root: dir.to_owned(),
            main,
            files,
        }));
    }
    Ok(None)
}

/// What one configuration file says about the policy.
#[derive(Debug, Default)]
struct Reading {
    /// It has a `security` table (or is a `security.*` file).
    has_security: bool,
    /// Its `allowContent`, if set.
    allow_content: Option<Vec<String>>,
}

fn decide(site: &Site, configure: bool) -> Result<Plan, HugoConfigError> {
    let mut policy: Option<(&ConfigFile, Vec<String>)> = None;
    let mut main_reading = Reading::default();
    let mut readings = Vec::new();
    for file in &site.files {
        let text = read_optional(&file.path)?;
        let reading = read_policy(&text, file.syntax, file.security_file)
            .map_err(|reason| invalid(&file.path, reason))?;
        if let Some(patterns) = &reading.allow_content {
            policy = Some((file, patterns.clone()));
        }
        if Some(file) == site.main.as_ref() {
            main_reading.has_security = reading.has_security;
        }
        readings.push((file, reading.has_security));
    }

    if let Some((file, patterns)) = policy {
        return match allows(&patterns, HTML) {
            Ok(true) => Ok(Plan::Ready(HugoSite::Allowed {
                file: file.path.clone(),
            })),
            Ok(false) => Err(HugoConfigError::Denies {
                file: file.path.clone(),
                replacement: setting(file.syntax, &suggest(&patterns)),
                patterns,
            }),
            Err(pattern) => Ok(Plan::Ready(HugoSite::Unchecked {
                file: file.path.clone(),
                pattern,
            })),
        };
    }

    // No policy: where it goes. The root file if there is one, else the configuration folder's
    // security file (an existing one, else a new security.toml).
    let (target, has_security) = match &site.main {
        Some(main) => (main.clone(), main_reading.has_security),
        None => readings
            .iter()
            .find(|(f, _)| f.security_file && f.path.parent() == site.default_dir().as_deref())
            .map(|(f, _)| ((*f).clone(), true))
            .unwrap_or_else(|| {
                let path = site.root.join("config/_default/security.toml");
                (
                    ConfigFile {
                        path,
                        syntax: Syntax::Toml,
                        security_file: true,
                    },
                    true,
                )
            }),
    };
    let placement = if target.security_file {
        Placement::TopLevel
    } else if has_security {
        Placement::InSecurity
    } else {
        Placement::NewTable
    };
    if configure && target.syntax == Syntax::Toml {
        // Fails now, not after the blogs are read, if the file cannot take the policy.
        let text = read_optional(&target.path)?;
        add_policy(&text, target.security_file).map_err(|reason| invalid(&target.path, reason))?;
        return Ok(Plan::Configure(target.path, target.security_file));
    }
    Err(HugoConfigError::Missing {
        lines: lines(target.syntax, placement),
        placement: placement.words(target.syntax),
        file: target.path,
        configure_refused: configure,
    })
}

impl Site {
    fn default_dir(&self) -> Option<PathBuf> {
        Some(self.root.join("config").join(CONFIG_DIRS[0]))
    }
}

/// Where the policy goes in a file that has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// A `security.*` file: at the top level.
    TopLevel,
    /// Into the file's existing `security` table.
    InSecurity,
    /// A new `security` table.
    NewTable,
}

impl Placement {
    fn words(self, syntax: Syntax) -> String {
        match (self, syntax) {
            (Placement::InSecurity, Syntax::Toml) => "this line to the [security] table of".into(),
            (Placement::InSecurity, Syntax::Yaml) => {
                "this line under the `security:` key of".into()
            }
            (Placement::InSecurity, Syntax::Json) => {
                "this member to the \"security\" object of".into()
            }
            (Placement::TopLevel, Syntax::Json) => "this member to the top-level object of".into(),
            (Placement::TopLevel, _) => "this line to".into(),
            (Placement::NewTable, Syntax::Json) => "this member to the top-level object of".into(),
            (Placement::NewTable, _) => "these lines to".into(),
        }
    }
}

/// The lines that set the policy, in `syntax`, for `placement`.
fn lines(syntax: Syntax, placement: Placement) -> String {
    let key = setting(syntax, &[ALLOW_CONTENT.to_owned()]);
    match (placement, syntax) {
        (Placement::TopLevel | Placement::InSecurity, _) => key,
        (Placement::NewTable, Syntax::Toml) => format!("[security]\n{key}"),
        (Placement::NewTable, Syntax::Yaml) => format!("security:\n  {key}"),
        (Placement::NewTable, Syntax::Json) => format!("\"security\": {{{key}}}"),
    }
}

/// The `allowContent` key set to `patterns`, in `syntax`.
fn setting(syntax: Syntax, patterns: &[String]) -> String {
    match syntax {
        Syntax::Toml => format!("allowContent = {}", toml_list(patterns)),
        Syntax::Yaml => format!("allowContent: {}", yaml_list(patterns)),
        Syntax::Json => format!(
            "\"allowContent\": {}",
            serde_json::to_string(patterns).unwrap_or_default()
        ),
    }
}

fn toml_list(patterns: &[String]) -> String {
    let items: Vec<String> = patterns
        .iter()
        .map(|p| {
            if p.contains('\'') || p.chars().any(char::is_control) {
                toml::Value::String(p.clone()).to_string()
            } else {
                format!("'{p}'")
            }
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn yaml_list(patterns: &[String]) -> String {
    let items: Vec<String> = patterns
        .iter()
        .map(|p| format!("'{}'", p.replace('\'', "''")))
        .collect();
    format!("[{}]", items.join(", "))
}

/// Reads a file, or the empty text when it does not exist (a configuration file the export
/// may create).
fn read_optional(path: &Path) -> Result<String, HugoConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(invalid(path, e.to_string())),
    }
}

/// The policy one file sets. Keys are matched without regard to case, as Hugo does.
fn read_policy(text: &str, syntax: Syntax, security_file: bool) -> Result<Reading, String> {
    match syntax {
        Syntax::Toml => {
            let table: toml::Table = text.parse().map_err(|e| format!("not valid TOML: {e}"))?;
            let value = toml::Value::Table(table);
            read_tree(&Tree::Toml(&value), security_file)
        }
        Syntax::Yaml => {
            let docs = yaml_rust2::YamlLoader::load_from_str(text)
                .map_err(|e| format!("not valid YAML: {e}"))?;
            match docs.first() {
                Some(doc) => read_tree(&Tree::Yaml(doc), security_file),
                None => Ok(Reading {
                    has_security: security_file,
                    allow_content: None,
                }),
            }
        }
        Syntax::Json => {
            if text.trim().is_empty() {
                return Ok(Reading {
                    has_security: security_file,
                    allow_content: None,
                });
            }
            let value: serde_json::Value =
                serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
            read_tree(&Tree::Json(&value), security_file)
        }
    }
}

/// A parsed configuration value, whatever the syntax.
#[derive(Clone, Copy)]
enum Tree<'a> {
    Toml(&'a toml::Value),
    Yaml(&'a yaml_rust2::Yaml),
    Json(&'a serde_json::Value),
}

impl<'a> Tree<'a> {
    /// The value under `key` (compared without case) when this is a table.
    fn get(&self, key: &str) -> Option<Tree<'a>> {
        match self {
            Tree::Toml(v) => v
                .as_table()?
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| Tree::Toml(v)),
            Tree::Yaml(v) => v
                .as_hash()?
                .iter()
                .find(|(k, _)| k.as_str().is_some_and(|k| k.eq_ignore_ascii_case(key)))
                .map(|(_, v)| Tree::Yaml(v)),
            Tree::Json(v) => v
                .as_object()?
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| Tree::Json(v)),
        }
    }

    fn is_table(&self) -> bool {
        match self {
            Tree::Toml(v) => v.is_table(),
            Tree::Yaml(v) => v.as_hash().is_some(),
            Tree::Json(v) => v.is_object(),
        }
    }

    fn as_str(&self) -> Option<&'a str> {
        match self {
            Tree::Toml(v) => v.as_str(),
            Tree::Yaml(v) => v.as_str(),
            Tree::Json(v) => v.as_str(),
        }
    }

    fn items(&self) -> Option<Vec<Tree<'a>>> {
        match self {
            Tree::Toml(v) => Some(v.as_array()?.iter().map(Tree::Toml).collect()),
            Tree::Yaml(v) => Some(v.as_vec()?.iter().map(Tree::Yaml).collect()),
            Tree::Json(v) => Some(v.as_array()?.iter().map(Tree::Json).collect()),
        }
    }

    /// A string or a list of strings (Hugo takes one string as a list of one).
    fn patterns(&self) -> Option<Vec<String>> {
        if let Some(s) = self.as_str() {
            return Some(vec![s.to_owned()]);
        }
        self.items()?
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect()
    }
}

fn read_tree(root: &Tree<'_>, security_file: bool) -> Result<Reading, String> {
    // A security.* file holds the keys at its top level; Hugo also takes them from a
    // `security` table in it.
    let security = if security_file {
        match root.get("allowContent") {
            Some(_) => Some(*root),
            None => root.get("security").or(Some(*root)),
        }
    } else {
        root.get("security")
    };
    let Some(security) = security else {
        return Ok(Reading::default());
    };
    if !security.is_table() {
        return Err("`security` is not a table".into());
    }
    let allow_content = match security.get("allowContent") {
        None => None,
        Some(value) => Some(value.patterns().ok_or(
            "security.allowContent must be a string or a list of strings (regular expressions)",
        )?),
    };
    Ok(Reading {
        has_security: true,
        allow_content,
    })
}

/// Whether Hugo's policy `patterns` allows `media_type`, by Hugo's rules: an empty list, one
/// holding exactly `none`, or one of empty strings only allows nothing; patterns are trimmed;
/// one starting with `! ` denies what the rest matches (and denials win); when any other
/// pattern exists, the type must match one of them; else anything not denied is allowed.
/// Matching is an unanchored regular-expression search, as Go's `MatchString`. `Err` holds a
/// pattern that is not a regular expression here.
fn allows(patterns: &[String], media_type: &str) -> Result<bool, String> {
    if patterns.iter().any(|p| p == "none") || patterns.iter().all(|p| p.is_empty()) {
        return Ok(false);
    }
    let mut positive = Vec::new();
    for raw in patterns {
        let p = raw.trim();
        if p.is_empty() {
            continue;
        }
        let (negative, source) = match p.strip_prefix("! ") {
            Some(rest) => (true, rest),
            None => (false, p),
        };
        let re = regex::Regex::new(source).map_err(|_| raw.clone())?;
        if negative {
            if re.is_match(media_type) {
                return Ok(false);
            }
        } else {
            positive.push(re);
        }
    }
    Ok(positive.is_empty() || positive.iter().any(|re| re.is_match(media_type)))
}

/// A policy close to `patterns` that allows `text/html`: denials of it dropped, and
/// `^text/html$` added when other types are listed; `['! ^text/org$']` when nothing would be
/// left (or the policy was `none`).
fn suggest(patterns: &[String]) -> Vec<String> {
    let fallback = vec![ALLOW_CONTENT.to_owned()];
    if patterns.iter().any(|p| p == "none") {
        return fallback;
    }
    let mut kept: Vec<String> = patterns
        .iter()
        .filter(|p| !p.trim().is_empty())
        .filter(|p| {
            let p = p.trim();
            match p.strip_prefix("! ") {
                // Unreadable patterns cannot get here (allows() would have failed on them).
                Some(rest) => !regex::Regex::new(rest).is_ok_and(|re| re.is_match(HTML)),
                None => true,
            }
        })
        .cloned()
        .collect();
    if kept.is_empty() {
        return fallback;
    }
    if allows(&kept, HTML) != Ok(true) {
        kept.push("^text/html$".to_owned());
    }
    kept
}

/// `text` (a TOML configuration) with `allowContent = ['! ^text/org$']` added under
/// `[security]` (at the top level of a `security.toml`), the rest kept as written.
fn add_policy(text: &str, security_file: bool) -> Result<String, String> {
    use toml_edit::{DocumentMut, Item, Table, Value};
    let mut doc: DocumentMut = text.parse().map_err(|e| format!("not valid TOML: {e}"))?;
    let value: Value = toml_list(&[ALLOW_CONTENT.to_owned()])
        .parse()
        .map_err(|e| format!("{e}"))?;
    let table = if security_file {
        doc.as_table_mut() as &mut dyn toml_edit::TableLike
    } else {
        let key = doc
            .iter()
            .map(|(k, _)| k)
            .find(|k| k.eq_ignore_ascii_case("security"))
            .unwrap_or("security")
            .to_owned();
        if !doc.contains_key(&key) {
            let mut table = Table::new();
            if !text.trim().is_empty() {
                table.decor_mut().set_prefix("\n");
            }
            doc.insert(&key, Item::Table(table));
        }
        doc.get_mut(&key)
            .and_then(Item::as_table_like_mut)
            .ok_or("`security` is not a table, so the policy cannot be added to it")?
    };
    if let Some(existing) = table
        .iter()
        .map(|(k, _)| k.to_owned())
        .find(|k| k.eq_ignore_ascii_case("allowContent"))
    {
        return Err(format!(
            "security.{existing} is already set; the export does not change it"
        ));
    }
    table.insert("allowContent", Item::Value(value));
    let mut out = doc.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// `path` made absolute against the current directory, `.` and `..` resolved without
/// following links (the output folder may not exist yet).
fn absolute(path: &Path) -> io::Result<PathBuf> {
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `hugo new site` writes (Hugo 0.168).
    const FRESH: &str =
        "baseURL = 'https://example.org/'\nlocale = 'en-us'\ntitle = 'My New Hugo Project'\n";

    fn strings(patterns: &[&str]) -> Vec<String> {
        patterns.iter().map(|s| (*s).to_owned()).collect()
    }

    fn html_allowed(patterns: &[&str]) -> bool {
        allows(&strings(patterns), HTML).unwrap()
    }

    /// A throw-away folder for one test.
    struct Dir(PathBuf);

    impl Dir {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "blogread-hugo-config-{name}-{}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }

        fn write(&self, rel: &str, text: &str) -> PathBuf {
            let path = self.0.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        }

        fn out(&self) -> PathBuf {
            self.0.join("content/blog")
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn hugo_default_policy_denies_html_and_the_asked_one_allows_it() {
        assert!(!html_allowed(&["! ^text/html$", "! ^text/org$"]));
        assert!(html_allowed(&[ALLOW_CONTENT]));
        assert!(allows(&strings(&[ALLOW_CONTENT]), "text/markdown").unwrap());
        assert!(!allows(&strings(&[ALLOW_CONTENT]), "text/org").unwrap());
    }

    #[test]
    fn an_empty_policy_or_none_allows_nothing() {
        assert!(!html_allowed(&[]));
        assert!(!html_allowed(&["none"]));
        assert!(!html_allowed(&["none", ".*"]));
        assert!(!html_allowed(&["", ""]));
        // `none` is a keyword only when exact; otherwise a pattern that does not match.
        assert!(html_allowed(&["NONE", ".*"]));
    }

    #[test]
    fn a_positive_pattern_must_match_when_one_exists() {
        assert!(html_allowed(&[".*"]));
        assert!(html_allowed(&["html"]));
        assert!(!html_allowed(&["^text/markdown$"]));
        assert!(!html_allowed(&["TEXT/HTML"]), "case-sensitive");
        assert!(html_allowed(&["  ^text/html$"]), "patterns are trimmed");
    }

    #[test]
    fn a_denial_needs_bang_space_and_wins_over_an_allowance() {
        assert!(!html_allowed(&["^text/html$", "! ^text/html$"]));
        // `!^text/org$` is a positive pattern (no space), which text/html does not match.
        assert!(!html_allowed(&["!^text/org$"]));
        // After `! ` the pattern is not trimmed again: ` ^text/html$` matches nothing.
        assert!(html_allowed(&["!  ^text/html$"]));
        assert!(html_allowed(&["", ALLOW_CONTENT]));
    }

    #[test]
    fn a_pattern_that_is_not_a_regex_is_reported_not_guessed() {
        assert_eq!(
            allows(&strings(&["(unclosed"]), HTML),
            Err("(unclosed".into())
        );
    }

    #[test]
    fn the_suggested_policy_allows_html_and_keeps_the_rest() {
        for policy in [
            vec!["none"],
            vec![],
            vec!["! ^text/html$"],
            vec!["! ^text/html$", "! ^text/org$"],
            vec!["^text/markdown$"],
            vec!["^text/markdown$", "! text/"],
        ] {
            let suggested = suggest(&strings(&policy));
            assert!(
                allows(&suggested, HTML).unwrap(),
                "{policy:?} -> {suggested:?}"
            );
        }
        assert_eq!(
            suggest(&strings(&["! ^text/html$", "! ^text/org$"])),
            [ALLOW_CONTENT]
        );
        assert_eq!(
            suggest(&strings(&["^text/markdown$", "! ^text/rst$"])),
            ["^text/markdown$", "! ^text/rst$", "^text/html$"]
        );
    }

    #[test]
    fn keys_are_read_without_regard_to_case() {
        let r = read_policy("[Security]\nAllowContent = '.*'\n", Syntax::Toml, false).unwrap();
        assert_eq!(r.allow_content, Some(strings(&[".*"])));
        let r = read_policy(
            "SECURITY:\n  allowcontent: ['a', 'b']\n",
            Syntax::Yaml,
            false,
        )
        .unwrap();
        assert_eq!(r.allow_content, Some(strings(&["a", "b"])));
        let r = read_policy(
            r#"{"security": {"allowContent": ["x"]}}"#,
            Syntax::Json,
            false,
        )
        .unwrap();
        assert_eq!(r.allow_content, Some(strings(&["x"])));
    }

    #[test]
    fn a_security_file_holds_the_keys_at_top_level() {
        let r = read_policy("allowContent = ['.*']\n", Syntax::Toml, true).unwrap();
        assert_eq!(r.allow_content, Some(strings(&[".*"])));
        let r = read_policy("[security]\nallowContent = ['.*']\n", Syntax::Toml, true).unwrap();
        assert_eq!(r.allow_content, Some(strings(&[".*"])));
        let r = read_policy("", Syntax::Yaml, true).unwrap();
        assert!(r.has_security && r.allow_content.is_none());
    }

    #[test]
    fn a_policy_of_the_wrong_type_is_an_error() {
        let e = read_policy("[security]\nallowContent = 5\n", Syntax::Toml, false).unwrap_err();
        assert!(e.contains("list of strings"), "{e}");
        assert!(read_policy("security = 3\n", Syntax::Toml, false).is_err());
        assert!(read_policy("not toml [", Syntax::Toml, false).is_err());
    }

    #[test]
    fn a_fresh_site_stops_with_the_lines_to_add() {
        let d = Dir::new("fresh");
        let file = d.write("hugo.toml", FRESH);
        let e = check(&d.out(), false).unwrap_err();
        let HugoConfigError::Missing {
            file: named, lines, ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(named, &file);
        assert_eq!(lines, "[security]\nallowContent = ['! ^text/org$']");
        let message = e.to_string();
        assert!(message.contains(&file.display().to_string()), "{message}");
        assert!(
            message.contains("[security]\nallowContent = ['! ^text/org$']"),
            "{message}"
        );
        assert!(message.contains("--configure-hugo"), "{message}");
        // The lines, added as printed, make Hugo's policy allow the files.
        std::fs::write(&file, format!("{FRESH}{lines}\n")).unwrap();
        assert!(matches!(
            check(&d.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
    }

    #[test]
    fn the_site_is_the_first_folder_upwards_with_a_configuration() {
        let d = Dir::new("upwards");
        d.write("hugo.toml", "[security]\nallowContent = ['none']\n");
        d.write("site/config.toml", "[security]\nallowContent = ['.*']\n");
        let out = d.0.join("site/content/blog/../blog");
        let Plan::Ready(HugoSite::Allowed { file }) = check(&out, false).unwrap() else {
            panic!()
        };
        assert_eq!(file, d.0.join("site/config.toml"));
    }

    #[test]
    fn only_the_first_root_file_is_read() {
        let d = Dir::new("first-root");
        d.write("hugo.toml", FRESH);
        d.write("config.toml", "[security]\nallowContent = ['.*']\n");
        d.write("hugo.yaml", "security:\n  allowContent: ['.*']\n");
        assert!(matches!(
            check(&d.out(), false),
            Err(HugoConfigError::Missing { .. })
        ));
    }

    #[test]
    fn the_configuration_folder_overrides_the_root_file_in_name_order() {
        let d = Dir::new("config-dir");
        d.write("hugo.toml", "[security]\nallowContent = ['none']\n");
        d.write(
            "config/_default/hugo.toml",
            "[security]\nallowContent = ['none']\n",
        );
        let sec = d.write("config/_default/security.toml", "allowContent = ['.*']\n");
        let Plan::Ready(HugoSite::Allowed { file }) = check(&d.out(), false).unwrap() else {
            panic!()
        };
        assert_eq!(file, sec);
        // security.yaml comes after security.toml.
        d.write("config/_default/security.yaml", "allowContent: ['none']\n");
        assert!(matches!(
            check(&d.out(), false),
            Err(HugoConfigError::Denies { .. })
        ));
        // production (what `hugo` builds) comes last.
        d.write(
            "config/production/security.toml",
            "allowContent = ['! ^text/org$']\n",
        );
        assert!(matches!(
            check(&d.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
        // development is not what `hugo` builds.
        d.write(
            "config/development/security.toml",
            "allowContent = ['none']\n",
        );
        assert!(matches!(
            check(&d.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
    }

    #[test]
    fn a_configuration_folder_alone_makes_a_site_and_gets_a_security_file() {
        let d = Dir::new("dir-only");
        d.write("config/_default/hugo.toml", FRESH);
        let e = check(&d.out(), false).unwrap_err();
        let HugoConfigError::Missing { file, lines, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(file, &d.0.join("config/_default/security.toml"));
        assert_eq!(lines, "allowContent = ['! ^text/org$']");
        let Plan::Configure(path, true) = check(&d.out(), true).unwrap() else {
            panic!()
        };
        assert_eq!(
            Plan::Configure(path.clone(), true).apply().unwrap(),
            HugoSite::Configured { file: path.clone() }
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "allowContent = ['! ^text/org$']\n"
        );
        assert!(matches!(
            check(&d.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
    }

    #[test]
    fn configure_adds_the_policy_keeping_comments_and_layout() {
        let d = Dir::new("configure");
        let text = format!("# my site\n{FRESH}\n[params]  # theme\n  color = 'red'\n");
        let file = d.write("hugo.toml", &text);
        let plan = check(&d.out(), true).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "check writes nothing"
        );
        assert_eq!(
            plan.apply().unwrap(),
            HugoSite::Configured { file: file.clone() }
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            format!("{text}\n[security]\nallowContent = ['! ^text/org$']\n")
        );
        assert!(matches!(
            check(&d.out(), true).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
    }

    #[test]
    fn configure_adds_to_an_existing_security_table_whatever_its_case() {
        let text =
            "title = 'x'\n\n[Security]\n  [Security.exec]\n  allow = ['^go$']\n\n[params]\nx = 1\n";
        let new = add_policy(text, false).unwrap();
        let r = read_policy(&new, Syntax::Toml, false).unwrap();
        assert_eq!(r.allow_content, Some(strings(&[ALLOW_CONTENT])));
        assert!(new.contains("  allow = ['^go$']\n"), "{new}");
        assert!(!new.contains("[security]"), "one table: {new}");
        let inline = add_policy("security = { funcs = {} }\n", false).unwrap();
        assert_eq!(
            read_policy(&inline, Syntax::Toml, false)
                .unwrap()
                .allow_content,
            Some(strings(&[ALLOW_CONTENT]))
        );
    }

    #[test]
    fn an_existing_security_table_gets_one_line_in_the_message() {
        let d = Dir::new("has-security");
        d.write("hugo.toml", "[security]\nenableInlineShortcodes = true\n");
        let e = check(&d.out(), false).unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains("this line to the [security] table of"),
            "{message}"
        );
        assert!(!message.contains("[security]\nallowContent"), "{message}");
    }

    #[test]
    fn a_policy_that_denies_html_is_never_edited() {
        let d = Dir::new("denies");
        let text = "[security]\nallowContent = ['! ^text/html$', '! ^text/org$']\n";
        let file = d.write("hugo.toml", text);
        for configure in [false, true] {
            let e = check(&d.out(), configure).unwrap_err();
            let HugoConfigError::Denies { replacement, .. } = &e else {
                panic!("{e:?}")
            };
            assert_eq!(replacement, "allowContent = ['! ^text/org$']");
            assert!(e.to_string().contains(&file.display().to_string()));
        }
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }

    #[test]
    fn yaml_and_json_are_read_but_never_edited() {
        let d = Dir::new("yaml");
        let file = d.write("hugo.yaml", "baseURL: https://example.org/\ntitle: x\n");
        for configure in [false, true] {
            let e = check(&d.out(), configure).unwrap_err();
            let HugoConfigError::Missing { lines, .. } = &e else {
                panic!("{e:?}")
            };
            assert_eq!(lines, "security:\n  allowContent: ['! ^text/org$']");
            assert_eq!(
                e.to_string()
                    .contains("by hand: --configure-hugo edits TOML files only"),
                configure
            );
        }
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "baseURL: https://example.org/\ntitle: x\n"
        );
        // The printed lines, added as printed, allow HTML.
        std::fs::write(
            &file,
            "baseURL: https://example.org/\ntitle: x\nsecurity:\n  allowContent: ['! ^text/org$']\n",
        )
        .unwrap();
        assert!(matches!(
            check(&d.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));

        let j = Dir::new("json");
        j.write("hugo.json", "{\"title\": \"x\"}");
        let e = check(&j.out(), true).unwrap_err();
        let HugoConfigError::Missing { lines, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(
            lines,
            "\"security\": {\"allowContent\": [\"! ^text/org$\"]}"
        );
        j.write("hugo.json", &format!("{{\"title\": \"x\", {lines}}}"));
        assert!(matches!(
            check(&j.out(), false).unwrap(),
            Plan::Ready(HugoSite::Allowed { .. })
        ));
    }

    #[test]
    fn no_configuration_at_all_goes_on_with_a_warning() {
        let d = Dir::new("none");
        let out = d.out();
        let Plan::Ready(site) = check(&out, true).unwrap() else {
            panic!()
        };
        assert_eq!(site, HugoSite::NotFound { out: out.clone() });
        let message = site.message().unwrap();
        assert!(
            message.contains("[security]\nallowContent = ['! ^text/org$']"),
            "{message}"
        );
        assert!(!d.0.join("hugo.toml").exists());
    }

    #[test]
    fn an_unreadable_pattern_is_reported_and_the_export_goes_on() {
        let d = Dir::new("unchecked");
        d.write("hugo.toml", "[security]\nallowContent = ['(?<name>x']\n");
        let Plan::Ready(HugoSite::Unchecked { pattern, .. }) = check(&d.out(), false).unwrap()
        else {
            panic!()
        };
        assert_eq!(pattern, "(?<name>x");
    }
}
