//! roslibjs in a headless Chromium page (Debian's `chromium`, driven by
//! playwright-core) against the bridge and a native hibari node: the page
//! publishes, the native node answers, the page decodes CBOR, calls a
//! native service and rosapi (tests/js/browser.mjs).

mod common;

use std::sync::{Arc, Mutex};

use common::{node_script, Fixture};
use hibari::msg::std_msgs::msg::{Float32MultiArray, String as RosString};
use hibari::msg::std_srvs::srv::{SetBool, SetBool_Request, SetBool_Response};
use hibari::QosProfile;

#[test]
fn a_browser_page_and_a_native_node_talk_through_the_bridge() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !std::path::Path::new(&chromium).exists() {
        common::missing(&format!(
            "Chromium at {chromium} for the bridge's browser peer, or set CHROMIUM"
        ));
    }
    let f = Fixture::new();
    let answer = Arc::new(
        f.node
            .create_publisher::<RosString>("/to_browser", QosProfile::default())
            .unwrap(),
    );
    let heard = Arc::new(Mutex::new(Vec::new()));
    let (a, h) = (answer.clone(), heard.clone());
    let _echo = f
        .node
        .create_subscription(
            "/from_browser",
            QosProfile::default(),
            move |m: RosString| {
                h.lock().unwrap().push(m.data.clone());
                a.publish(RosString {
                    data: m.data.to_uppercase(),
                })
                .unwrap();
            },
        )
        .unwrap();
    let floats = f
        .node
        .create_publisher::<Float32MultiArray>("/floats", QosProfile::default())
        .unwrap();
    let _ready = f
        .node
        .create_subscription("/ready", QosProfile::default(), move |_m: RosString| {
            floats
                .publish(Float32MultiArray {
                    data: vec![1.5, -2.25],
                    ..Default::default()
                })
                .unwrap();
        })
        .unwrap();
    let _set = f
        .node
        .create_service::<SetBool, _>(
            "/set",
            QosProfile::services_default(),
            |r: SetBool_Request| SetBool_Response {
                success: r.data,
                message: format!("got {}", r.data),
            },
        )
        .unwrap();
    node_script("browser.mjs", &[&f.url()]).finish();
    assert_eq!(
        heard.lock().unwrap().as_slice(),
        [
            "from the browser 0",
            "from the browser 1",
            "from the browser 2"
        ]
    );
}
