//! Variants of fixture components made by editing their bytes, so one build gives many
//! plugins with distinct digests: the `trust_probe` and `net_probe` fixtures configured
//! through their `CONFIG` blocks, and any component with a custom section appended (same code and
//! behaviour, new digest — what a replaced plugin looks like).

use crate::fixtures;

const MARKER: &[u8] = b"AIRLOCK-TRUST-PROBE:";
const CONFIG_LEN: usize = 96;

/// The `trust_probe` component with its configuration set to `config` (`key=value;` pairs:
/// `name`, `describe`, `bulk`, `files`, `write`, `env`; see the fixture).
pub fn trust_probe(config: &str) -> Vec<u8> {
    let mut bytes = std::fs::read(fixtures::TRUST_PROBE).unwrap_or_else(|e| panic!("read trust_probe: {e}"));
    let at = bytes
        .windows(MARKER.len())
        .position(|w| w == MARKER)
        .unwrap_or_else(|| panic!("trust_probe has no configuration block"));
    let mut block = format!("AIRLOCK-TRUST-PROBE:{config};").into_bytes();
    assert!(block.len() <= CONFIG_LEN, "configuration too long: {config}");
    block.resize(CONFIG_LEN, b' ');
    bytes[at..at + CONFIG_LEN].copy_from_slice(&block);
    bytes
}

/// The `net_probe` component with its configuration set to `config` (`key=value;` pairs:
/// `net` — its network requests, comma-separated —, `version`; see the fixture).
pub fn net_probe(config: &str) -> Vec<u8> {
    const NET_MARKER: &[u8] = b"AIRLOCK-NET-PROBE:";
    const NET_CONFIG_LEN: usize = 128;
    let mut bytes = std::fs::read(fixtures::NET_PROBE).unwrap_or_else(|e| panic!("read net_probe: {e}"));
    let at = bytes
        .windows(NET_MARKER.len())
        .position(|w| w == NET_MARKER)
        .unwrap_or_else(|| panic!("net_probe has no configuration block"));
    let mut block = format!("AIRLOCK-NET-PROBE:{config};").into_bytes();
    assert!(block.len() <= NET_CONFIG_LEN, "configuration too long: {config}");
    block.resize(NET_CONFIG_LEN, b' ');
    bytes[at..at + NET_CONFIG_LEN].copy_from_slice(&block);
    bytes
}

/// `component` with a custom section named `tag` appended: a new digest, the same code.
pub fn with_custom_section(component: &[u8], tag: &str) -> Vec<u8> {
    let mut payload = leb128(tag.len());
    payload.extend_from_slice(tag.as_bytes());
    let mut bytes = component.to_vec();
    bytes.push(0);
    bytes.extend(leb128(payload.len()));
    bytes.extend(payload);
    bytes
}

fn leb128(mut value: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}
