//! Network rules: the `wasi:http` destinations a plugin may reach, written
//! `scheme://host[:port]` in requests (a tool's self-description) and grants (policy files).
//!
//! - scheme: `http` or `https`, nothing else (raw sockets are never granted);
//! - host: one name or IP literal (`api.example.com`, `127.0.0.1`, `[::1]`), compared
//!   case-insensitively, or `*.example.com`, which matches every name *below*
//!   `example.com` at any depth (`a.example.com`, `a.b.example.com`) but not `example.com`
//!   itself: grant both rules to allow both;
//! - port: optional, the scheme's default (80, 443) when left out; otherwise 1 to 65535 in
//!   decimal digits, nothing else (no sign, no empty port after a `:`), or `*` for every
//!   port (`https://*:*`: every host at a public address, on any port).
//!
//! - or `*` alone: every host *at a public address* (what a web fetcher needs); it never
//!   reaches loopback, private, link-local or other special addresses, see below.
//!
//! A rule never has a path, query, fragment or user name.
//! Names are compared as written: a rule for `localhost` does not allow `127.0.0.1` (nor
//! the reverse), and `0x7f.1` or `2130706433` are not taken for `127.0.0.1`.
//!
//! Addresses: the host resolves a request's name itself and connects only to an address it
//! checked ([`crate::runtime::http`]). An address that is not public ([`is_public`]: loopback,
//! private, link-local with the cloud metadata address, carrier-grade NAT, multicast, …) is
//! reached only through a rule that names it explicitly — the IP literal itself, or
//! `localhost` for a loopback address ([`NetRule::names_address`]). A rule for a name
//! (`https://api.example.com`, `*.example.com`, `*`) reaches public addresses only, so a
//! name that resolves, or is rebound, to `127.0.0.1` or `169.254.169.254` is refused.
//!
//! A request's destination is parsed once, by [`NetRule::for_authority`], from the authority
//! the connector will connect to; a port that is empty, signed, out of range or too long to
//! be one (`:83618`, `:`, a port plus 2^32) is refused, never read as another port.
//!
//! Invariant: a parsed [`NetRule`] is canonical (lower-case scheme and host, no trailing dot,
//! the port filled in, IP literals in their standard form), so rules that mean the same
//! destination compare equal and display the same way.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// The port of a rule written with `:*`: every port (0 is never a request's port).
const ANY_PORT: u16 = 0;
/// The longest host name DNS allows.
const MAX_NAME: usize = 253;
/// The longest label of a host name.
const MAX_LABEL: usize = 63;

/// A URL scheme a rule may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    Http,
    Https,
}

impl Scheme {
    /// `http` or `https`, in any case.
    pub fn parse(text: &str) -> Option<Self> {
        if text.eq_ignore_ascii_case("http") {
            Some(Self::Http)
        } else if text.eq_ignore_ascii_case("https") {
            Some(Self::Https)
        } else {
            None
        }
    }

    pub fn default_port(self) -> u16 {
        match self {
            Self::Http => 80,
            Self::Https => 443,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
        }
    }
}

/// The host part of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum HostPattern {
    /// One host: a lower-case name, or an IP address in standard form (IPv6 without brackets).
    Exact(String),
    /// `*.<suffix>`: every name that ends in `.<suffix>`, not `<suffix>` itself.
    Below(String),
    /// `*`: every host, reached at public addresses only.
    Public,
}

/// One `scheme://host[:port]` rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NetRule {
    scheme: Scheme,
    host: HostPattern,
    port: u16,
}

impl NetRule {
    /// Parses a rule as written in a request or a grant; the error says what to write instead.
    pub fn parse(text: &str) -> Result<NetRule, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "a network rule cannot be empty: write `scheme://host[:port]`, e.g. `https://api.example.com`".into()
            );
        }
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(format!("`{text}` has no scheme: write `https://{text}` (or `http://`)"));
        };
        let scheme = Scheme::parse(scheme).ok_or_else(|| {
            format!(
                "`{text}`: the scheme `{scheme}` cannot be granted; only `http` and `https` can (through wasi:http)"
            )
        })?;
        // A lone trailing slash is how many people write a bare origin.
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains('@') {
            return Err(format!("`{text}` has a user name; a rule names only `scheme://host[:port]`"));
        }
        if let Some(extra) = rest.find(['/', '?', '#']) {
            return Err(format!(
                "`{text}` has a path, query or fragment (`{}`); a rule names only `scheme://host[:port]`",
                &rest[extra..]
            ));
        }
        let (host, port) = split_host_port(rest).map_err(|reason| format!("`{text}`: {reason}"))?;
        let port = match port {
            None => scheme.default_port(),
            Some("*") => ANY_PORT,
            Some(port) => match parse_port(port) {
                Some(port) => port,
                None => return Err(format!("`{text}`: `{port}` is not a port (1 to 65535)")),
            },
        };
        let host = host_pattern(host).map_err(|reason| format!("`{text}`: {reason}"))?;
        Ok(NetRule { scheme, host, port })
    }

    /// The exact rule for one request's destination, or `None` when the host is neither a
    /// host name nor an IP literal (such a request is never allowed).
    pub fn for_request(scheme: &str, host: &str, port: Option<u16>) -> Option<NetRule> {
        let scheme = Scheme::parse(scheme)?;
        let host = if let Some(inner) = host.strip_prefix('[') {
            inner.strip_suffix(']')?.parse::<Ipv6Addr>().ok()?.to_string()
        } else {
            exact_host(host).ok()?
        };
        Some(NetRule { scheme, host: HostPattern::Exact(host), port: port.unwrap_or(scheme.default_port()) })
    }

    /// The exact rule for a request to `scheme://authority`, parsed as the connector reads
    /// it: `host[:port]` (an IPv6 host in brackets), where a port is 1 to 65535 in decimal
    /// digits and a missing one (no `:` at all) is the scheme's default. The error says why
    /// no rule can allow the request.
    pub fn for_authority(scheme: &str, authority: &str) -> Result<NetRule, &'static str> {
        const NOT_A_HOST: &str = "the host is not a host name or IP address";
        let scheme = Scheme::parse(scheme).ok_or("only http and https requests can be granted")?;
        // The connector would take what is after `@` as the host: two readings of one string.
        if authority.contains('@') {
            return Err("URLs with a user name are not allowed");
        }
        let (host, port) = split_host_port(authority).map_err(|_| NOT_A_HOST)?;
        let port = match port {
            None => scheme.default_port(),
            Some(port) => parse_port(port).ok_or("the port is not a number from 1 to 65535")?,
        };
        NetRule::for_request(scheme.as_str(), host, Some(port)).ok_or(NOT_A_HOST)
    }

    /// Whether every destination `other` allows is also allowed by `self`.
    pub fn covers(&self, other: &NetRule) -> bool {
        if self.scheme != other.scheme || (self.port != ANY_PORT && self.port != other.port) {
            return false;
        }
        match (&self.host, &other.host) {
            (HostPattern::Exact(mine), HostPattern::Exact(theirs)) => mine == theirs,
            (HostPattern::Below(suffix), HostPattern::Exact(name)) => is_below(name, suffix),
            (HostPattern::Below(suffix), HostPattern::Below(inner)) => inner == suffix || is_below(inner, suffix),
            (HostPattern::Exact(_), HostPattern::Below(_)) => false,
            (HostPattern::Public, _) => true,
            (_, HostPattern::Public) => false,
        }
    }

    /// The host a request rule names (a name, or an IP address without brackets); `None`
    /// for a wildcard rule.
    pub fn host(&self) -> Option<&str> {
        match &self.host {
            HostPattern::Exact(host) => Some(host),
            HostPattern::Below(_) | HostPattern::Public => None,
        }
    }

    /// Whether the rule reaches every host on every port (`https://*:*`): the only grant that
    /// gives a program a command starts the network, which no OS sandbox here can narrow to
    /// hosts.
    pub fn is_every_host(&self) -> bool {
        matches!(self.host, HostPattern::Public) && self.port == 0
    }

    /// The port; for a rule written with `:*`, 0.
    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Whether this rule's host is an address that is not public, or `localhost`: what only
    /// a rule naming it reaches.
    fn names_private(&self) -> bool {
        match &self.host {
            HostPattern::Exact(host) => match host.parse::<IpAddr>() {
                Ok(ip) => !is_public(ip),
                Err(_) => host == "localhost",
            },
            HostPattern::Below(_) | HostPattern::Public => false,
        }
    }

    /// Whether this rule names `ip` explicitly, so that reaching it is meant even when it is
    /// not a public address: the rule's host is that IP literal, or `localhost` and `ip` is
    /// a loopback address. A rule for any other name, or a wildcard, names no address.
    pub fn names_address(&self, ip: IpAddr) -> bool {
        let HostPattern::Exact(host) = &self.host else { return false };
        match host.parse::<IpAddr>() {
            Ok(literal) => canonical_ip(literal) == canonical_ip(ip),
            Err(_) => host == "localhost" && canonical_ip(ip).is_loopback(),
        }
    }
}

/// An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) as the IPv4 address it is.
fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// Whether `ip` is an address of the public internet: not unspecified, loopback, private
/// (RFC 1918, IPv6 unique-local), link-local (with `169.254.169.254`, the cloud metadata
/// address), carrier-grade NAT, benchmarking, documentation, reserved, broadcast or
/// multicast, and no IPv6 form that embeds such an IPv4 address (mapped, compatible,
/// NAT64, 6to4) or tunnels to one (Teredo).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

/// Whether `ip` is link-local (`169.254.0.0/16`, `fe80::/10`, and their IPv6 forms), where
/// cloud metadata services answer: never suggested as a grant.
pub fn is_link_local(ip: IpAddr) -> bool {
    match canonical_ip(ip) {
        IpAddr::V4(v4) => v4.octets()[..2] == [169, 254],
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80 || v6.segments()[..4] == [0xfd00, 0xec2, 0, 0],
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0                                    // "this network", 0.0.0.0
        || a == 10                              // private
        || a == 127                             // loopback
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT
        || (a == 169 && b == 254)               // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))  // private
        || (a == 192 && b == 0 && c == 0)       // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)       // documentation
        || (a == 192 && b == 88 && c == 99)     // 6to4 relay anycast
        || (a == 192 && b == 168)               // private
        || (a == 198 && (b == 18 || b == 19))   // benchmarking
        || (a == 198 && b == 51 && c == 100)    // documentation
        || (a == 203 && b == 0 && c == 113)     // documentation
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    match s {
        // Unspecified, loopback and the deprecated IPv4-compatible form (`::a.b.c.d`).
        [0, 0, 0, 0, 0, 0, _, _] => false,
        // IPv4-translated (::ffff:0:a.b.c.d, SIIT): the IPv4 address decides.
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => is_public_v4(embedded(hi, lo)),
        // NAT64 (64:ff9b::/96, 64:ff9b:1::/48): the IPv4 address it reaches decides.
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => is_public_v4(embedded(hi, lo)),
        [0x64, 0xff9b, 1, ..] => false,
        // 6to4 (2002::/16): the embedded IPv4 address decides.
        [0x2002, hi, lo, ..] => is_public_v4(embedded(hi, lo)),
        // Teredo (2001::/32), benchmarking (2001:2::/48), ORCHIDs, documentation
        // (2001:db8::/32, 3fff::/20) and SRv6 SIDs (5f00::/16).
        [0x2001, 0, ..] | [0x2001, 2, 0, ..] | [0x2001, 0xdb8, ..] => false,
        [first, ..] if (first & 0xfff0) == 0x3ff0 || first == 0x5f00 => false,
        [0x2001, second, ..] if (0x10..0x30).contains(&second) => false,
        // Unique-local fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8.
        [first, ..] if (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80 || (first & 0xffc0) == 0xfec0 => false,
        [first, ..] if (first & 0xff00) == 0xff00 => false,
        // Discard-only 100::/64.
        [0x100, 0, 0, 0, ..] => false,
        _ => true,
    }
}

/// Whether `name` is a strict subdomain of `suffix` (`a.b.example.com` of `example.com`).
fn is_below(name: &str, suffix: &str) -> bool {
    name.len() > suffix.len() + 1 && name.ends_with(suffix) && name.as_bytes()[name.len() - suffix.len() - 1] == b'.'
}

/// Whether one of `rules` allows a request to `scheme://host[:port]` (a missing port is the
/// scheme's default; an IPv6 host is written in brackets, as in a URL).
pub fn allows(rules: &[NetRule], scheme: &str, host: &str, port: Option<u16>) -> bool {
    match NetRule::for_request(scheme, host, port) {
        Some(request) => rules.iter().any(|rule| rule.covers(&request)),
        None => false,
    }
}

/// The rules that are both requested and granted. A request inside a grant is kept as
/// requested (an exact host under a granted `*.`, a narrower wildcard); a request broader
/// than a grant is narrowed to the grant. Rules covered by another rule of the result are
/// dropped, so the result has no duplicates.
pub fn intersect(requested: &[NetRule], granted: &[NetRule]) -> Vec<NetRule> {
    let mut met: Vec<NetRule> = Vec::new();
    for request in requested {
        for grant in granted {
            let narrower = if grant.covers(request) {
                request
            } else if request.covers(grant) {
                grant
            } else {
                continue;
            };
            if !met.contains(narrower) {
                met.push(narrower.clone());
            }
        }
    }
    let all = met.clone();
    // A rule that names a private address (an IP literal, localhost) is kept beside a
    // wildcard that covers it: the wildcard reaches public addresses only.
    met.retain(|rule| rule.names_private() || !all.iter().any(|other| other != rule && other.covers(rule)));
    met
}

/// A port written in decimal digits only, 1 to 65535.
fn parse_port(text: &str) -> Option<u16> {
    if text.is_empty() || text.len() > 5 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|port| *port != 0)
}

/// Splits `host[:port]`, where an IPv6 host is in brackets.
fn split_host_port(text: &str) -> Result<(&str, Option<&str>), String> {
    if text.starts_with('[') {
        let Some(end) = text.find(']') else {
            return Err("the IPv6 address has no closing `]`".into());
        };
        let (host, after) = text.split_at(end + 1);
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(port))),
                None => Err(format!("unexpected `{after}` after the IPv6 address")),
            },
        };
    }
    match text.split_once(':') {
        Some((_, port)) if port.contains(':') => {
            Err("an IPv6 address must be written in brackets: `http://[::1]:8080`".into())
        }
        Some((host, port)) => Ok((host, Some(port))),
        None => Ok((text, None)),
    }
}

/// The host part of a rule: `*.<name>`, a name, an IPv4 address or a bracketed IPv6 one.
fn host_pattern(host: &str) -> Result<HostPattern, String> {
    if host.is_empty() {
        return Err("the host is missing".into());
    }
    if host == "*" {
        return Ok(HostPattern::Public);
    }
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']').unwrap_or(inner);
        let ip: Ipv6Addr = inner.parse().map_err(|_| format!("`{inner}` is not an IPv6 address"))?;
        return Ok(HostPattern::Exact(ip.to_string()));
    }
    if let Some(suffix) = host.strip_prefix("*.") {
        if suffix.contains('*') {
            return Err("a wildcard is allowed only once, as the first label: `*.example.com`".into());
        }
        let suffix = exact_host(suffix)?;
        if is_numeric(&suffix) || suffix.contains(':') {
            return Err("`*.` must be followed by a domain name, not an IP address".into());
        }
        if !suffix.contains('.') {
            return Err(format!(
                "`*.{suffix}` would match every host under a top-level domain; name the domain: `*.example.{suffix}`"
            ));
        }
        return Ok(HostPattern::Below(suffix));
    }
    if host.contains('*') {
        return Err("a wildcard is allowed only as the whole first label: `*.example.com`".into());
    }
    Ok(HostPattern::Exact(exact_host(host)?))
}

/// A host name or IPv4 address in canonical form: lower-case, without a trailing dot.
fn exact_host(host: &str) -> Result<String, String> {
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host.is_empty() {
        return Err("the host is missing".into());
    }
    if is_numeric(&host) {
        // Strict dotted quad only: `127.1` and friends are resolver-specific spellings.
        let ip: Ipv4Addr =
            host.parse().map_err(|_| format!("`{host}` is not an IPv4 address (write all four parts)"))?;
        return Ok(ip.to_string());
    }
    if !host.is_ascii() {
        return Err(format!("`{host}`: write an international name in its ASCII form (`xn--…`)"));
    }
    if host.len() > MAX_NAME {
        return Err(format!("the host name is longer than {MAX_NAME} characters"));
    }
    for label in host.split('.') {
        if label.is_empty() || label.len() > MAX_LABEL {
            return Err(format!("`{host}` is not a host name (empty or overlong part)"));
        }
        if let Some(bad) = label.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
            return Err(format!("`{host}` is not a host name (`{bad}` is not allowed)"));
        }
    }
    Ok(host)
}

fn is_numeric(host: &str) -> bool {
    host.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

impl fmt::Display for NetRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme.as_str())?;
        match &self.host {
            HostPattern::Exact(host) if host.contains(':') => write!(f, "[{host}]")?,
            HostPattern::Exact(host) => f.write_str(host)?,
            HostPattern::Below(suffix) => write!(f, "*.{suffix}")?,
            HostPattern::Public => f.write_str("*")?,
        }
        if self.port == ANY_PORT {
            f.write_str(":*")?;
        } else if self.port != self.scheme.default_port() {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
}

impl FromStr for NetRule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// Serialized as the canonical text (`https://*.example.com:8443`).
impl Serialize for NetRule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
#[path = "net_tests.rs"]
mod tests;
