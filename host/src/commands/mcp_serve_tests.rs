use super::*;

#[test]
fn only_loopback_addresses_are_served() {
    assert_eq!(loopback_address("127.0.0.1:0").unwrap(), "127.0.0.1:0".parse().unwrap());
    assert_eq!(loopback_address("[::1]:8080").unwrap(), "[::1]:8080".parse().unwrap());
    assert_eq!(loopback_address("localhost:9").unwrap(), "127.0.0.1:9".parse().unwrap());
    for refused in ["0.0.0.0:80", "[::]:80", "192.168.1.2:80", "example.com:80", "127.0.0.1", "127.0.0.1:x", ":80"] {
        assert!(matches!(loopback_address(refused), Err(ServeError::Usage(_))), "{refused}");
    }
}

#[test]
fn approval_modes_are_spelled_either_way() {
    assert_eq!(parse_mode("auto_edit").unwrap(), ApprovalMode::AutoEdit);
    assert_eq!(parse_mode("auto-edit").unwrap(), ApprovalMode::AutoEdit);
    assert_eq!(parse_mode("yolo").unwrap(), ApprovalMode::Yolo);
    assert!(parse_mode("everything").is_err());
}
