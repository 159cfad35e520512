//! Brings up the loopback interface of a new network namespace (it starts down), so a
//! command without the network can still run the local servers its tests start. One
//! `RTM_NEWLINK` request over rtnetlink, with the interface flag `IFF_UP`, and its
//! acknowledgement.

use rustix::net::netlink::SocketAddrNetlink;
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

/// The loopback interface's index in a new network namespace: it is made first.
const LOOPBACK_INDEX: i32 = 1;
const RTM_NEWLINK: u16 = 16;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_ACK: u16 = 4;
const NLMSG_ERROR: u16 = 2;
const IFF_UP: u32 = 1;
/// `nlmsghdr` (16 bytes) + `ifinfomsg` (16 bytes).
const REQUEST_LEN: usize = 32;

/// Sets the loopback interface up; needs `CAP_NET_ADMIN` in the namespace's user namespace.
pub(super) fn up() -> Result<(), String> {
    let socket = rustix::net::socket_with(AddressFamily::NETLINK, SocketType::RAW, SocketFlags::CLOEXEC, None)
        .map_err(|e| format!("cannot open rtnetlink: {e}"))?;
    let kernel = SocketAddrNetlink::new(0, 0);
    rustix::net::sendto(&socket, &request(), SendFlags::empty(), &kernel)
        .map_err(|e| format!("cannot ask for the loopback interface: {e}"))?;
    let mut reply = [0u8; 256];
    let (_, length) = rustix::net::recv(&socket, &mut reply, RecvFlags::empty())
        .map_err(|e| format!("no answer about the loopback interface: {e}"))?;
    match acknowledged(&reply[..length.min(reply.len())]) {
        Some(0) => Ok(()),
        Some(errno) => Err(format!("the loopback interface stays down: error {}", -errno)),
        None => Err("the kernel's answer about the loopback interface is not an acknowledgement".into()),
    }
}

/// The request: set `IFF_UP` on interface [`LOOPBACK_INDEX`].
fn request() -> [u8; REQUEST_LEN] {
    let mut message = [0u8; REQUEST_LEN];
    message[0..4].copy_from_slice(&(REQUEST_LEN as u32).to_ne_bytes());
    message[4..6].copy_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message[6..8].copy_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    message[8..12].copy_from_slice(&1u32.to_ne_bytes());
    // ifinfomsg: family AF_UNSPEC, padding, type 0, index, flags, change mask.
    message[20..24].copy_from_slice(&LOOPBACK_INDEX.to_ne_bytes());
    message[24..28].copy_from_slice(&IFF_UP.to_ne_bytes());
    message[28..32].copy_from_slice(&IFF_UP.to_ne_bytes());
    message
}

/// The error code of an `NLMSG_ERROR` reply (0 is the acknowledgement), if `reply` is one.
fn acknowledged(reply: &[u8]) -> Option<i32> {
    let kind = u16::from_ne_bytes(reply.get(4..6)?.try_into().ok()?);
    if kind != NLMSG_ERROR {
        return None;
    }
    Some(i32::from_ne_bytes(reply.get(16..20)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_sets_the_up_flag_of_interface_one() {
        let message = request();
        assert_eq!(u32::from_ne_bytes(message[0..4].try_into().expect("len")), 32);
        assert_eq!(u16::from_ne_bytes(message[4..6].try_into().expect("type")), RTM_NEWLINK);
        assert_eq!(i32::from_ne_bytes(message[20..24].try_into().expect("index")), 1);
        assert_eq!(u32::from_ne_bytes(message[24..28].try_into().expect("flags")), IFF_UP);
    }

    #[test]
    fn only_an_error_message_is_an_acknowledgement() {
        let mut reply = [0u8; 36];
        reply[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
        assert_eq!(acknowledged(&reply), Some(0));
        reply[16..20].copy_from_slice(&(-1i32).to_ne_bytes());
        assert_eq!(acknowledged(&reply), Some(-1));
        reply[4..6].copy_from_slice(&RTM_NEWLINK.to_ne_bytes());
        assert_eq!(acknowledged(&reply), None);
        assert_eq!(acknowledged(&reply[..3]), None);
    }
}
