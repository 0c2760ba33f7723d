//! The address policy: which IP addresses a deploy hook may be sent to.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

/// Which resolved addresses a deploy hook firing may connect to.
///
/// Save-time validation and the default [`HttpNotifier`](super::HttpNotifier) use
/// [`AddressPolicy::GlobalOnly`]. [`AddressPolicy::GlobalAndLoopback`] exists only so tests can
/// send hooks to a receiver on this machine; it is chosen by an explicitly named builder method,
/// never by default and never from the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum AddressPolicy {
    /// Only globally reachable addresses ([`is_global`]).
    #[default]
    GlobalOnly,
    /// Globally reachable addresses plus loopback (`127.0.0.0/8` and `::1`), and nothing else
    /// private. For tests only.
    GlobalAndLoopback,
}

impl AddressPolicy {
    /// Whether this policy lets a deploy hook connect to `ip`.
    pub fn permits(self, ip: IpAddr) -> bool {
        match self {
            AddressPolicy::GlobalOnly => is_global(ip),
            // `IpAddr::is_loopback` is 127.0.0.0/8 for IPv4 and exactly `::1` for IPv6: an
            // IPv4-mapped loopback address (`::ffff:127.0.0.1`) is not let through.
            AddressPolicy::GlobalAndLoopback => is_global(ip) || ip.is_loopback(),
        }
    }
}

/// Whether `ip` is globally reachable, that is, a deploy hook may be sent to it.
///
/// Refuses every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries that is not
/// globally reachable (and the deprecated ones), plus multicast, and judges IPv4-mapped
/// (`::ffff:0:0/96`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) addresses by the IPv4 address
/// they carry; the local-use NAT64 prefix `64:ff9b:1::/48` is refused itself. An IPv6 address
/// outside `2000::/3`, the only space IANA has allocated for global unicast, is not global unless
/// one of those embedding rules says otherwise.
///
/// The most specific block holding an address decides, so the globally reachable exceptions
/// inside a reserved block (`192.0.0.9/32` inside `192.0.0.0/24`, `2001:1::1/128` inside
/// `2001::/23`) are honoured.
pub fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_global_v4(v4),
        IpAddr::V6(v6) => is_global_v6(v6),
    }
}

/// How a block of the registry is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Globally reachable (listed so that exceptions inside a larger reserved block win).
    Global,
    /// Not globally reachable.
    NotGlobal,
    /// Judged by the IPv4 address in the low 32 bits (IPv4-mapped, NAT64).
    EmbeddedLow32,
    /// Judged by the IPv4 address in bits 16 to 47 (6to4).
    Embedded6to4,
}

const fn v4(a: u8, b: u8, c: u8, d: u8, len: u8) -> Ipv4Net {
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), len)
}

#[allow(clippy::too_many_arguments)]
const fn v6(s: [u16; 8], len: u8) -> Ipv6Net {
    Ipv6Net::new_assert(
        Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        len,
    )
}

/// The IANA IPv4 Special-Purpose Address Registry, plus multicast.
const IPV4_BLOCKS: &[(Ipv4Net, Reach)] = &[
    // "This network", RFC 791 section 3.2.
    (v4(0, 0, 0, 0, 8), Reach::NotGlobal),
    // "This host on this network", RFC 1122 section 3.2.1.3.
    (v4(0, 0, 0, 0, 32), Reach::NotGlobal),
    // Private-Use, RFC 1918.
    (v4(10, 0, 0, 0, 8), Reach::NotGlobal),
    // Shared Address Space (carrier-grade NAT), RFC 6598.
    (v4(100, 64, 0, 0, 10), Reach::NotGlobal),
    // Loopback, RFC 1122 section 3.2.1.3.
    (v4(127, 0, 0, 0, 8), Reach::NotGlobal),
    // Link Local, RFC 3927.
    (v4(169, 254, 0, 0, 16), Reach::NotGlobal),
    // Private-Use, RFC 1918.
    (v4(172, 16, 0, 0, 12), Reach::NotGlobal),
    // IETF Protocol Assignments, RFC 6890 section 2.1.
    (v4(192, 0, 0, 0, 24), Reach::NotGlobal),
    // IPv4 Service Continuity Prefix, RFC 7335.
    (v4(192, 0, 0, 0, 29), Reach::NotGlobal),
    // IPv4 dummy address, RFC 7600.
    (v4(192, 0, 0, 8, 32), Reach::NotGlobal),
    // Port Control Protocol Anycast, RFC 7723: globally reachable.
    (v4(192, 0, 0, 9, 32), Reach::Global),
    // Traversal Using Relays around NAT Anycast, RFC 8155: globally reachable.
    (v4(192, 0, 0, 10, 32), Reach::Global),
    // NAT64/DNS64 Discovery, RFC 8880 and RFC 7050.
    (v4(192, 0, 0, 170, 32), Reach::NotGlobal),
    (v4(192, 0, 0, 171, 32), Reach::NotGlobal),
    // Documentation (TEST-NET-1), RFC 5737.
    (v4(192, 0, 2, 0, 24), Reach::NotGlobal),
    // AS112-v4, RFC 7535: globally reachable.
    (v4(192, 31, 196, 0, 24), Reach::Global),
    // AMT, RFC 7450: globally reachable.
    (v4(192, 52, 193, 0, 24), Reach::Global),
    // Deprecated 6to4 Relay Anycast, RFC 7526 (and 6a44-relay anycast, RFC 6751): the registry
    // gives no global reachability for a deprecated block, so it is refused.
    (v4(192, 88, 99, 0, 24), Reach::NotGlobal),
    // Private-Use, RFC 1918.
    (v4(192, 168, 0, 0, 16), Reach::NotGlobal),
    // Direct Delegation AS112 Service, RFC 7534: globally reachable.
    (v4(192, 175, 48, 0, 24), Reach::Global),
    // Benchmarking, RFC 2544.
    (v4(198, 18, 0, 0, 15), Reach::NotGlobal),
    // Documentation (TEST-NET-2), RFC 5737.
    (v4(198, 51, 100, 0, 24), Reach::NotGlobal),
    // Documentation (TEST-NET-3), RFC 5737.
    (v4(203, 0, 113, 0, 24), Reach::NotGlobal),
    // Multicast, RFC 5771 (IANA multicast registry, not the special-purpose one): never a unicast
    // HTTP server.
    (v4(224, 0, 0, 0, 4), Reach::NotGlobal),
    // Reserved, RFC 1112 section 4.
    (v4(240, 0, 0, 0, 4), Reach::NotGlobal),
    // Limited Broadcast, RFC 8190 and RFC 919 section 7.
    (v4(255, 255, 255, 255, 32), Reach::NotGlobal),
];

/// The IANA IPv6 Special-Purpose Address Registry, plus multicast and deprecated blocks.
const IPV6_BLOCKS: &[(Ipv6Net, Reach)] = &[
    // Unspecified Address, RFC 4291 section 2.5.2.
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), Reach::NotGlobal),
    // Loopback Address, RFC 4291 section 2.5.3.
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), Reach::NotGlobal),
    // IPv4-Compatible IPv6 Address, deprecated by RFC 4291 section 2.5.5.1.
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 96), Reach::NotGlobal),
    // IPv4-mapped Address, RFC 4291 section 2.5.5.2: judged by the IPv4 address inside.
    (v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96), Reach::EmbeddedLow32),
    // IPv4-IPv6 Translation (NAT64 well-known prefix), RFC 6052: judged by the IPv4 inside.
    (
        v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96),
        Reach::EmbeddedLow32,
    ),
    // IPv4-IPv6 Translation, local-use prefix, RFC 8215.
    (v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48), Reach::NotGlobal),
    // Discard-Only Address Block, RFC 6666.
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), Reach::NotGlobal),
    // Dummy IPv6 Prefix, RFC 9780.
    (v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64), Reach::NotGlobal),
    // IETF Protocol Assignments, RFC 2928.
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23), Reach::NotGlobal),
    // TEREDO, RFC 4380 and RFC 8190 (the registry gives no global reachability).
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32), Reach::NotGlobal),
    // Port Control Protocol Anycast, RFC 7723: globally reachable.
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 1], 128), Reach::Global),
    // Traversal Using Relays around NAT Anycast, RFC 8155: globally reachable.
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 2], 128), Reach::Global),
    // DNS-SD Service Registration Protocol Anycast, RFC 9665: globally reachable.
    (v6([0x2001, 1, 0, 0, 0, 0, 0, 3], 128), Reach::Global),
    // Benchmarking, RFC 5180 and RFC Errata 1752.
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), Reach::NotGlobal),
    // AMT, RFC 7450: globally reachable.
    (v6([0x2001, 3, 0, 0, 0, 0, 0, 0], 32), Reach::Global),
    // AS112-v6, RFC 7535: globally reachable.
    (v6([0x2001, 4, 0x112, 0, 0, 0, 0, 0], 48), Reach::Global),
    // Deprecated (previously ORCHID), RFC 4843.
    (v6([0x2001, 0x10, 0, 0, 0, 0, 0, 0], 28), Reach::NotGlobal),
    // ORCHIDv2, RFC 7343: globally reachable.
    (v6([0x2001, 0x20, 0, 0, 0, 0, 0, 0], 28), Reach::Global),
    // Drone Remote ID Protocol Entity Tags (DETs) Prefix, RFC 9374: globally reachable.
    (v6([0x2001, 0x30, 0, 0, 0, 0, 0, 0], 28), Reach::Global),
    // Documentation, RFC 3849.
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), Reach::NotGlobal),
    // 6to4, RFC 3056: judged by the IPv4 address in bits 16 to 47.
    (v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), Reach::Embedded6to4),
    // Direct Delegation AS112 Service, RFC 7534: globally reachable.
    (v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48), Reach::Global),
    // Documentation, RFC 9637.
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), Reach::NotGlobal),
    // Segment Routing (SRv6) SIDs, RFC 9602.
    (v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16), Reach::NotGlobal),
    // Unique-Local, RFC 4193 and RFC 8190.
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), Reach::NotGlobal),
    // Link-Local Unicast, RFC 4291 section 2.5.6.
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), Reach::NotGlobal),
    // Site-Local Unicast, deprecated by RFC 3879.
    (v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10), Reach::NotGlobal),
    // Multicast, RFC 4291 section 2.7.
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), Reach::NotGlobal),
];

/// Global Unicast, the only IPv6 space IANA has allocated for it (RFC 4291 section 2.4 and the
/// IANA IPv6 Address Space registry). Everything outside is reserved or special.
const IPV6_GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

fn is_global_v4(ip: Ipv4Addr) -> bool {
    let most_specific = IPV4_BLOCKS
        .iter()
        .filter(|(net, _)| net.contains(&ip))
        .max_by_key(|(net, _)| net.prefix_len());
    match most_specific {
        None => true,
        Some((_, reach)) => *reach == Reach::Global,
    }
}

fn is_global_v6(ip: Ipv6Addr) -> bool {
    let most_specific = IPV6_BLOCKS
        .iter()
        .filter(|(net, _)| net.contains(&ip))
        .max_by_key(|(net, _)| net.prefix_len());
    let octets = ip.octets();
    match most_specific {
        None => IPV6_GLOBAL_UNICAST.contains(&ip),
        Some((_, Reach::Global)) => true,
        Some((_, Reach::NotGlobal)) => false,
        Some((_, Reach::EmbeddedLow32)) => is_global_v4(Ipv4Addr::new(
            octets[12], octets[13], octets[14], octets[15],
        )),
        Some((_, Reach::Embedded6to4)) => {
            is_global_v4(Ipv4Addr::new(octets[2], octets[3], octets[4], octets[5]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row per block: an address inside it, and neighbours just outside it (with what they
    /// must be judged; a neighbour can fall into another reserved block).
    struct Case {
        block: &'static str,
        inside: &'static [&'static str],
        expected_inside: bool,
        outside: &'static [(&'static str, bool)],
    }

    const fn case(
        block: &'static str,
        inside: &'static [&'static str],
        expected_inside: bool,
        outside: &'static [(&'static str, bool)],
    ) -> Case {
        Case {
            block,
            inside,
            expected_inside,
            outside,
        }
    }

    const V4_CASES: &[Case] = &[
        case(
            "0.0.0.0/8",
            &["0.0.0.0", "0.1.2.3", "0.255.255.255"],
            false,
            &[("1.0.0.0", true)],
        ),
        case(
            "10.0.0.0/8",
            &["10.0.0.0", "10.0.0.7", "10.255.255.255"],
            false,
            &[("9.255.255.255", true), ("11.0.0.0", true)],
        ),
        case(
            "100.64.0.0/10",
            &["100.64.0.0", "100.100.100.100", "100.127.255.255"],
            false,
            &[("100.63.255.255", true), ("100.128.0.0", true)],
        ),
        case(
            "127.0.0.0/8",
            &["127.0.0.1", "127.255.255.255"],
            false,
            &[("126.255.255.255", true), ("128.0.0.0", true)],
        ),
        case(
            "169.254.0.0/16",
            &["169.254.0.0", "169.254.169.254", "169.254.255.255"],
            false,
            &[("169.253.255.255", true), ("169.255.0.0", true)],
        ),
        case(
            "172.16.0.0/12",
            &["172.16.0.0", "172.20.1.1", "172.31.255.255"],
            false,
            &[("172.15.255.255", true), ("172.32.0.0", true)],
        ),
        case(
            "192.0.0.0/24",
            &[
                "192.0.0.0",
                "192.0.0.8",
                "192.0.0.11",
                "192.0.0.170",
                "192.0.0.171",
                "192.0.0.255",
            ],
            false,
            &[("191.255.255.255", true), ("192.0.1.0", true)],
        ),
        case(
            "192.0.0.9/32 and 192.0.0.10/32 (anycast, global)",
            &["192.0.0.9", "192.0.0.10"],
            true,
            &[("192.0.0.8", false), ("192.0.0.11", false)],
        ),
        case(
            "192.0.2.0/24",
            &["192.0.2.0", "192.0.2.1", "192.0.2.255"],
            false,
            &[("192.0.1.255", true), ("192.0.3.0", true)],
        ),
        case(
            "192.31.196.0/24 (AS112, global)",
            &["192.31.196.1"],
            true,
            &[],
        ),
        case(
            "192.52.193.0/24 (AMT, global)",
            &["192.52.193.1"],
            true,
            &[],
        ),
        case(
            "192.88.99.0/24",
            &["192.88.99.0", "192.88.99.1", "192.88.99.2", "192.88.99.255"],
            false,
            &[("192.88.98.255", true), ("192.88.100.0", true)],
        ),
        case(
            "192.168.0.0/16",
            &["192.168.0.0", "192.168.1.1", "192.168.255.255"],
            false,
            &[("192.167.255.255", true), ("192.169.0.0", true)],
        ),
        case(
            "192.175.48.0/24 (AS112, global)",
            &["192.175.48.1"],
            true,
            &[],
        ),
        case(
            "198.18.0.0/15",
            &["198.18.0.0", "198.19.255.255"],
            false,
            &[("198.17.255.255", true), ("198.20.0.0", true)],
        ),
        case(
            "198.51.100.0/24",
            &["198.51.100.0", "198.51.100.7", "198.51.100.255"],
            false,
            &[("198.51.99.255", true), ("198.51.101.0", true)],
        ),
        case(
            "203.0.113.0/24",
            &["203.0.113.0", "203.0.113.9", "203.0.113.255"],
            false,
            &[("203.0.112.255", true), ("203.0.114.0", true)],
        ),
        case(
            "224.0.0.0/4",
            &["224.0.0.1", "233.252.0.1", "239.255.255.255"],
            false,
            &[("223.255.255.255", true)],
        ),
        case(
            "240.0.0.0/4",
            &["240.0.0.0", "250.1.2.3", "255.255.255.254"],
            false,
            &[],
        ),
        case(
            "255.255.255.255/32",
            &["255.255.255.255"],
            false,
            &[("255.255.255.254", false)],
        ),
        case(
            "public",
            &[
                "1.1.1.1",
                "8.8.8.8",
                "75.2.60.5",
                "76.76.21.21",
                "104.16.0.1",
                "216.24.57.1",
            ],
            true,
            &[],
        ),
    ];

    const V6_CASES: &[Case] = &[
        case("::/128", &["::"], false, &[]),
        case("::1/128", &["::1"], false, &[("::2", false)]),
        case(
            "::/96 (IPv4-compatible)",
            &["::7f00:1", "::808:808", "::ffff"],
            false,
            &[],
        ),
        case(
            "::ffff:0:0/96 with a non-global IPv4",
            &[
                "::ffff:127.0.0.1",
                "::ffff:10.0.0.7",
                "::ffff:192.168.1.1",
                "::ffff:0.0.0.0",
                "::ffff:255.255.255.255",
            ],
            false,
            &[],
        ),
        case(
            "::ffff:0:0/96 with a global IPv4",
            &["::ffff:8.8.8.8", "::ffff:1.1.1.1"],
            true,
            &[("::fffe:808:808", false), ("::1:0:808:808", false)],
        ),
        case(
            "64:ff9b::/96 with a non-global IPv4",
            &[
                "64:ff9b::a00:1",
                "64:ff9b::7f00:1",
                "64:ff9b::c0a8:101",
                "64:ff9b::",
            ],
            false,
            &[],
        ),
        case(
            "64:ff9b::/96 with a global IPv4",
            &["64:ff9b::808:808", "64:ff9b::1.1.1.1"],
            true,
            &[
                ("64:ff9b:0:0:0:1:808:808", false),
                ("64:ff9a:ffff:ffff:ffff:ffff:808:808", false),
            ],
        ),
        case(
            "64:ff9b:1::/48",
            &[
                "64:ff9b:1::808:808",
                "64:ff9b:1::a00:1",
                "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
            ],
            false,
            &[("64:ff9b:2::808:808", false)],
        ),
        case(
            "100::/64",
            &["100::", "100::1", "100::ffff:ffff:ffff:ffff"],
            false,
            &[],
        ),
        case("100:0:0:1::/64", &["100:0:0:1::1"], false, &[]),
        case(
            "2001::/23",
            &["2001:1::", "2001:1::4", "2001:5::1", "2001:1ff:ffff::1"],
            false,
            &[("2001:200::1", true), ("2000:ffff:ffff:ffff::1", true)],
        ),
        case(
            "2001::/32 (Teredo)",
            &["2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
            false,
            &[],
        ),
        case(
            "2001:1::1..3/128 (anycast, global)",
            &["2001:1::1", "2001:1::2", "2001:1::3"],
            true,
            &[("2001:1::", false), ("2001:1::4", false)],
        ),
        case(
            "2001:2::/48",
            &["2001:2::1", "2001:2:0:ffff::1"],
            false,
            &[("2001:2:1::1", false)],
        ),
        case(
            "2001:3::/32 (AMT, global)",
            &["2001:3::1"],
            true,
            &[("2001:4::1", false)],
        ),
        case(
            "2001:4:112::/48 (AS112, global)",
            &["2001:4:112::1"],
            true,
            &[("2001:4:113::1", false)],
        ),
        case("2001:10::/28", &["2001:10::1", "2001:1f::1"], false, &[]),
        case(
            "2001:20::/28 and 2001:30::/28 (global)",
            &["2001:20::1", "2001:3f::1"],
            true,
            &[("2001:40::1", false)],
        ),
        case(
            "2001:db8::/32",
            &["2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff::1"],
            false,
            &[("2001:db7:ffff::1", true), ("2001:db9::1", true)],
        ),
        case(
            "2002::/16 with a non-global IPv4",
            &[
                "2002:c0a8:0101::",
                "2002:7f00:1::1",
                "2002:a00:7::1",
                "2002::",
            ],
            false,
            &[],
        ),
        case(
            "2002::/16 with a global IPv4",
            &["2002:808:808::1"],
            true,
            &[("2001:ffff:ffff::1", true), ("2003::1", true)],
        ),
        case(
            "2620:4f:8000::/48 (AS112, global)",
            &["2620:4f:8000::1"],
            true,
            &[],
        ),
        case(
            "3fff::/20",
            &["3fff::1", "3fff:fff:ffff::1"],
            false,
            &[("3ffe:ffff::1", true), ("3fff:1000::1", true)],
        ),
        case(
            "5f00::/16",
            &["5f00::1", "5f00:ffff::1"],
            false,
            &[("5eff:ffff::1", false), ("5f01::1", false)],
        ),
        case(
            "fc00::/7",
            &["fc00::1", "fd12:3456::1", "fdff:ffff::1"],
            false,
            &[("fbff:ffff::1", false), ("fe00::1", false)],
        ),
        case(
            "fe80::/10",
            &["fe80::1", "febf:ffff::1"],
            false,
            &[("fe7f:ffff::1", false)],
        ),
        case("fec0::/10", &["fec0::1"], false, &[]),
        case(
            "ff00::/8",
            &["ff02::1", "ff0e::1", "ffff:ffff::1"],
            false,
            &[],
        ),
        case(
            "outside 2000::/3",
            &["4000::1", "8000::1", "1fff:ffff::1", "e000::1"],
            false,
            &[],
        ),
        case(
            "public",
            &[
                "2606:4700:4700::1111",
                "2001:4860:4860::8888",
                "2a05:d014::1",
                "3ffe::1",
            ],
            true,
            &[],
        ),
    ];

    fn check(cases: &[Case]) {
        for c in cases {
            for a in c.inside {
                let ip: IpAddr = a.parse().unwrap();
                assert_eq!(is_global(ip), c.expected_inside, "{a} in {}", c.block);
            }
            for (a, expected) in c.outside {
                let ip: IpAddr = a.parse().unwrap();
                assert_eq!(is_global(ip), *expected, "{a} next to {}", c.block);
            }
        }
    }

    #[test]
    fn ipv4_blocks_and_their_neighbours() {
        check(V4_CASES);
    }

    #[test]
    fn ipv6_blocks_and_their_neighbours() {
        check(V6_CASES);
    }

    #[test]
    fn every_table_block_is_covered_by_a_test_case() {
        let v4_inside: Vec<Ipv4Addr> = V4_CASES
            .iter()
            .flat_map(|c| c.inside.iter().map(|a| a.parse().unwrap()))
            .collect();
        for (net, _) in IPV4_BLOCKS {
            assert!(
                v4_inside.iter().any(|ip| net.contains(ip)),
                "no test address in {net}"
            );
        }
        let v6_inside: Vec<Ipv6Addr> = V6_CASES
            .iter()
            .flat_map(|c| c.inside.iter().map(|a| a.parse().unwrap()))
            .collect();
        for (net, _) in IPV6_BLOCKS {
            assert!(
                v6_inside.iter().any(|ip| net.contains(ip)),
                "no test address in {net}"
            );
        }
    }

    #[test]
    fn loopback_policy_lets_through_loopback_and_nothing_else_private() {
        let p = AddressPolicy::GlobalAndLoopback;
        for a in [
            "127.0.0.1",
            "127.3.2.1",
            "::1",
            "8.8.8.8",
            "2606:4700:4700::1111",
        ] {
            assert!(p.permits(a.parse().unwrap()), "{a}");
        }
        for a in [
            "10.0.0.7",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "::",
            "::ffff:127.0.0.1",
            "fe80::1",
            "fd00::1",
            "64:ff9b::7f00:1",
        ] {
            assert!(!p.permits(a.parse().unwrap()), "{a}");
        }
        let g = AddressPolicy::GlobalOnly;
        for a in ["127.0.0.1", "::1"] {
            assert!(!g.permits(a.parse().unwrap()), "{a}");
        }
        assert_eq!(AddressPolicy::default(), AddressPolicy::GlobalOnly);
    }
}
