//! `hibari demo`: a message round-trip, typed and dynamic, printed for a person.

use std::time::Instant;

use anyhow::{ensure, Result};
use clap::Args;
use hibari::interfaces::{Distro, Registry};
use hibari::msg::sensor_msgs::msg::{Image, LaserScan};
use hibari::msg::std_msgs::msg::Header;
use hibari::{dynamic, HasView, Message};

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Image width for the zero-copy part.
    #[arg(long, default_value_t = 1920)]
    width: u32,
    /// Image height for the zero-copy part.
    #[arg(long, default_value_t = 1080)]
    height: u32,
}

pub fn run(args: DemoArgs) -> Result<()> {
    println!("hibari demo: ROS 2 messages through CDR and back\n");

    // 1. A LaserScan, typed: encode, show the bytes, decode, compare.
    let scan = LaserScan {
        header: Header {
            frame_id: "laser".into(),
            ..Default::default()
        },
        angle_min: -1.5,
        angle_max: 1.5,
        angle_increment: 0.25,
        range_max: 30.0,
        ranges: (1..=10).map(|i| i as f32).collect(),
        ..Default::default()
    };
    let bytes = scan.to_cdr()?;
    println!(
        "1. {} ({} bytes of CDR, {}):",
        LaserScan::TYPE_NAME,
        bytes.len(),
        LaserScan::TYPE_HASH
    );
    for chunk in bytes.chunks(16).take(4) {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        println!("   {}", hex.join(" "));
    }
    let back = LaserScan::from_cdr(&bytes)?;
    ensure!(back == scan, "typed round-trip changed the message");
    println!("   decoded again: equal to the original ✓\n");

    // 2. The same bytes, decoded by a registry that knows the type only by name.
    let registry = Registry::bundled(Distro::Jazzy);
    let name = registry
        .message_str(LaserScan::TYPE_NAME)
        .map(|d| d.name.clone())
        .ok_or_else(|| anyhow::anyhow!("LaserScan is not bundled"))?;
    let value = dynamic::decode(&registry, &name, &bytes)?;
    let json = dynamic::to_json(&registry, &name, &value);
    println!("2. decoded dynamically, as rosbridge JSON:\n   {json}");
    let again = dynamic::encode(
        &registry,
        &name,
        &dynamic::from_json(&registry, &name, &json)?,
    )?;
    ensure!(again == bytes, "dynamic round-trip changed the bytes");
    println!("   JSON -> CDR gives the same {} bytes ✓\n", again.len());

    // 3. A camera frame laid out in place and read through a zero-copy view.
    let (w, h) = (args.width, args.height);
    let step = w.checked_mul(3).ok_or_else(|| {
        anyhow::anyhow!("--width {w} is too large: a row of rgb8 pixels would exceed 4 GiB")
    })?;
    let pixels = (step as usize)
        .checked_mul(h as usize)
        .ok_or_else(|| anyhow::anyhow!("a {w}x{h} rgb8 image does not fit in memory"))?;
    let meta = Image {
        width: w,
        height: h,
        step,
        encoding: "rgb8".into(),
        ..Default::default()
    };
    let mut buf = vec![0u8; meta.serialized_size_with_hole("data", pixels)?];
    let t0 = Instant::now();
    let (len, hole) = meta.encode_with_hole("data", pixels, &mut buf)?;
    for (i, px) in buf[hole.clone()].iter_mut().enumerate() {
        *px = i as u8;
    }
    let t1 = Instant::now();
    let view = Image::view(&buf[..len])?;
    let t2 = Instant::now();
    let data = view.data.as_slice().unwrap_or_default();
    ensure!(
        data.len() == pixels && data.as_ptr() == buf[hole].as_ptr(),
        "the view copied the pixels"
    );
    println!(
        "3. {w}x{h} rgb8 Image: {len} bytes laid out with the pixels written in place ({:.2} ms),",
        (t1 - t0).as_secs_f64() * 1e3
    );
    println!(
        "   viewed without copying in {:.1} µs: {}x{} {} — data points into the buffer ✓",
        (t2 - t1).as_secs_f64() * 1e6,
        view.width,
        view.height,
        view.encoding
    );
    Ok(())
}
