//! An image pipeline with type adaptation, in one process (E5).
//!
//! The camera publishes the `image` crate's own `RgbImage` on a topic of type
//! `sensor_msgs/msg/Image`, through a [`TypeAdapter`]. Four subscribers:
//!
//! ```text
//! camera ──RgbImage──▶ /camera/image_raw ──▶ processor (&RgbImage: handed over, no conversion)
//!   (30 Hz thread)        (sensor_msgs/    ├─▶ viewer    (&Image: the ROS type, converted once per frame)
//!                          msg/Image)      └─▶ resizer   (&RgbImage) ──GrayImage, half size──▶
//!                                                /camera/image_small ──▶ recorder (GrayImage, owned: moved)
//! ```
//!
//! It prints, per stage, how many frames arrived, how many had the very pixel
//! buffer that was published (handed over) and how many had a copy, how often
//! each adapter converted, and the latency from the sample's source timestamp
//! to the callback. The subscribers share one single-threaded executor, so a
//! stage's latency includes the callbacks that ran before it.
//!
//! ```text
//! cargo run -p hibari --release --example image_pipeline
//! cargo run -p hibari --release --example image_pipeline -- --frames 300 --size 640x480 --rate 60
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hibari::msg::sensor_msgs::msg::Image;
use hibari::{
    Context, QosProfile, SampleInfo, SingleThreadedExecutor, SubscriptionOptions, TypeAdapter,
};
use image::{GrayImage, RgbImage};

/// `RgbImage` → `Image` conversions (each copies the pixels).
static RGB_TO_ROS: AtomicUsize = AtomicUsize::new(0);
/// `Image` → `RgbImage` conversions.
static RGB_FROM_ROS: AtomicUsize = AtomicUsize::new(0);
/// `GrayImage` → `Image` conversions.
static GRAY_TO_ROS: AtomicUsize = AtomicUsize::new(0);
/// `Image` → `GrayImage` conversions.
static GRAY_FROM_ROS: AtomicUsize = AtomicUsize::new(0);

/// An 8-bit image as a `sensor_msgs/msg/Image` of `encoding` with `channels`
/// bytes per pixel, moving the buffer when the value is owned.
fn to_image(width: u32, height: u32, encoding: &str, channels: u32, data: Vec<u8>) -> Image {
    let mut ros = Image {
        height,
        width,
        encoding: encoding.into(),
        step: width * channels,
        data,
        ..Image::default()
    };
    ros.header.frame_id = "camera".into();
    ros
}

/// `RgbImage` standing for `sensor_msgs/msg/Image` with encoding `rgb8`.
/// An `Image` of another encoding or too short a buffer becomes an empty
/// image (a `TypeAdapter` cannot fail).
struct RgbAdapter;

impl TypeAdapter for RgbAdapter {
    type Custom = RgbImage;
    type Ros = Image;

    fn to_ros(image: &RgbImage) -> Image {
        RGB_TO_ROS.fetch_add(1, Ordering::Relaxed);
        to_image(
            image.width(),
            image.height(),
            "rgb8",
            3,
            image.as_raw().clone(),
        )
    }
    fn into_ros(image: RgbImage) -> Image {
        RGB_TO_ROS.fetch_add(1, Ordering::Relaxed);
        let (width, height) = image.dimensions();
        to_image(width, height, "rgb8", 3, image.into_raw())
    }
    fn from_ros(ros: &Image) -> RgbImage {
        Self::from_ros_owned(ros.clone())
    }
    fn from_ros_owned(ros: Image) -> RgbImage {
        RGB_FROM_ROS.fetch_add(1, Ordering::Relaxed);
        (ros.encoding == "rgb8" && ros.step == ros.width * 3)
            .then(|| RgbImage::from_raw(ros.width, ros.height, ros.data))
            .flatten()
            .unwrap_or_default()
    }
}

/// `GrayImage` standing for `sensor_msgs/msg/Image` with encoding `mono8`.
struct GrayAdapter;

impl TypeAdapter for GrayAdapter {
    type Custom = GrayImage;
    type Ros = Image;

    fn to_ros(image: &GrayImage) -> Image {
        GRAY_TO_ROS.fetch_add(1, Ordering::Relaxed);
        to_image(
            image.width(),
            image.height(),
            "mono8",
            1,
            image.as_raw().clone(),
        )
    }
    fn from_ros(ros: &Image) -> GrayImage {
        GRAY_FROM_ROS.fetch_add(1, Ordering::Relaxed);
        (ros.encoding == "mono8" && ros.step == ros.width)
            .then(|| GrayImage::from_raw(ros.width, ros.height, ros.data.clone()))
            .flatten()
            .unwrap_or_default()
    }
}

/// What one subscriber saw.
#[derive(Default)]
struct Stage {
    received: usize,
    lost: u64,
    /// Callbacks that saw the published pixel buffer itself.
    handed_over: usize,
    /// Callbacks that saw another buffer (a conversion or a clone).
    copies: usize,
    latencies_ns: Vec<i64>,
    first: Option<(usize, usize)>,
}

type Shared = Arc<Mutex<Stage>>;

impl Stage {
    /// Records one sample whose pixels are at `got`; `published` holds the
    /// address each sequence number was published with.
    fn record(shared: &Shared, info: &SampleInfo, got: *const u8, published: &Addresses) {
        let now = hibari::transports::now_ns();
        let sent = published.get(info.sequence);
        let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
        s.latencies_ns.push(now - info.source_timestamp_ns);
        s.received += 1;
        s.lost += info.lost_before;
        if got as usize == sent {
            s.handed_over += 1;
        } else {
            s.copies += 1;
        }
        s.first.get_or_insert((sent, got as usize));
    }
}

/// The pixel-buffer address of every published sample, by sequence number
/// (a publisher's n-th successful publish has sequence n).
struct Addresses(Vec<AtomicUsize>);

impl Addresses {
    fn new(n: usize) -> Arc<Self> {
        Arc::new(Addresses((0..n).map(|_| AtomicUsize::new(0)).collect()))
    }
    fn set(&self, sequence: u64, address: *const u8) {
        if let Some(slot) = self.0.get(sequence as usize - 1) {
            slot.store(address as usize, Ordering::Release);
        }
    }
    fn get(&self, sequence: u64) -> usize {
        self.0
            .get(sequence as usize - 1)
            .map_or(0, |a| a.load(Ordering::Acquire))
    }
}

/// Frames, width, height, rate (Hz), from `--frames N --size WxH --rate HZ`.
fn parse_args() -> Result<(usize, u32, u32, f64), String> {
    let (mut frames, mut width, mut height, mut rate) = (90, 1920, 1080, 30.0);
    let mut args = std::env::args().skip(1).take_while(|a| a != "--ros-args");
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let bad = || format!("bad value for {flag}: {value}");
        match flag.as_str() {
            "--frames" => frames = value.parse().map_err(|_| bad())?,
            "--rate" => rate = value.parse().map_err(|_| bad())?,
            "--size" => {
                let (w, h) = value.split_once('x').ok_or_else(bad)?;
                (width, height) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
            }
            _ => {
                return Err(format!(
                    "unknown argument {flag} (--frames, --size, --rate)"
                ))
            }
        }
    }
    if frames == 0 || width < 2 || height < 2 || rate <= 0.0 {
        return Err("frames, rate and a size of at least 2x2 must be positive".into());
    }
    Ok((frames, width, height, rate))
}

/// A test pattern that moves with `frame` (the camera's own work: not the
/// middleware's).
fn capture(width: u32, height: u32, frame: usize) -> RgbImage {
    let mut image = RgbImage::new(width, height);
    for (y, row) in image.chunks_exact_mut(width as usize * 3).enumerate() {
        for (x, px) in row.chunks_exact_mut(3).enumerate() {
            px.copy_from_slice(&[(x + frame) as u8, (y + frame) as u8, (x ^ y) as u8]);
        }
    }
    image
}

/// Half size, gray: each output pixel is the luma of a 2x2 block.
fn shrink_to_gray(image: &RgbImage) -> GrayImage {
    let (w, h) = (image.width() / 2, image.height() / 2);
    let stride = image.width() as usize * 3;
    let raw = image.as_raw();
    let mut out = GrayImage::new(w, h);
    for (y, row) in out.chunks_exact_mut(w as usize).enumerate() {
        let top = &raw[2 * y * stride..][..stride];
        let bottom = &raw[(2 * y + 1) * stride..][..stride];
        for (x, px) in row.iter_mut().enumerate() {
            let sum = |c: usize| {
                let i = 6 * x + c;
                u32::from(top[i])
                    + u32::from(top[i + 3])
                    + u32::from(bottom[i])
                    + u32::from(bottom[i + 3])
            };
            // ITU-R BT.601 luma in fixed point, over 4 pixels.
            *px = ((77 * sum(0) + 150 * sum(1) + 29 * sum(2)) >> 10) as u8;
        }
    }
    out
}

fn percentile(sorted: &[i64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).map_or(f64::NAN, |&ns| ns as f64 / 1e3)
}

/// The table: per stage, frames, loss, buffers handed over or copied, latency.
fn print_stages(stages: &[Shared; 4]) {
    println!(
        "{:<10} {:<18} {:>8} {:>5} {:>11} {:>6}   latency p50 / p99 / max (µs)",
        "stage", "takes", "received", "lost", "handed over", "copies"
    );
    let takes = [
        "&RgbImage",
        "&Image (ROS)",
        "&RgbImage",
        "GrayImage (owned)",
    ];
    let names = ["processor", "viewer", "resizer", "recorder"];
    for ((name, takes), stage) in names.iter().zip(takes).zip(stages) {
        let mut s = stage.lock().unwrap_or_else(|e| e.into_inner());
        s.latencies_ns.sort_unstable();
        let l = &s.latencies_ns;
        println!(
            "{name:<10} {takes:<18} {:>8} {:>5} {:>11} {:>6}   {:>8.1} / {:>6.1} / {:>6.1}",
            s.received,
            s.lost,
            s.handed_over,
            s.copies,
            percentile(l, 0.5),
            percentile(l, 0.99),
            percentile(l, 1.0),
        );
    }
    let first = |i: usize| stages[i].lock().ok().and_then(|s| s.first);
    if let (Some((sent, proc)), Some((_, view)), Some((small, rec))) =
        (first(0), first(1), first(3))
    {
        println!(
            "first frame: published pixels at {sent:#x}; the processor read {proc:#x}, \
             the viewer {view:#x}"
        );
        println!("first small frame: published at {small:#x}; the recorder owns {rec:#x}");
    }
    println!(
        "(handed over: the callback saw the published buffer itself; copies: another buffer. \
         Latency runs from the sample's source timestamp to the callback: the viewer's includes \
         its conversion, and the resizer runs after the viewer on the same thread.)"
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (frames, width, height, rate) = parse_args()?;
    let context = Context::with_args(std::env::args())?;
    let qos = QosProfile::sensor_data();
    let raw_sent = Addresses::new(frames);
    let small_sent = Addresses::new(frames);
    let stages: [Shared; 4] = Default::default();

    let camera = context.create_node("camera")?;
    let image_pub = camera.create_publisher::<RgbAdapter>("camera/image_raw", qos)?;

    let processor = context.create_node("processor")?;
    let (stage, sent) = (stages[0].clone(), raw_sent.clone());
    let brightness = Arc::new(AtomicUsize::new(0));
    let mean = brightness.clone();
    let _processor = processor.create_subscription(
        "camera/image_raw",
        SubscriptionOptions::new(qos).adapter::<RgbAdapter>(),
        move |image: &RgbImage, info: &SampleInfo| {
            Stage::record(&stage, info, image.as_raw().as_ptr(), &sent);
            // A little real work on the shared pixels: the green mean of one row.
            let row = &image.as_raw()[..image.width() as usize * 3];
            let green: usize = row.iter().skip(1).step_by(3).map(|&g| usize::from(g)).sum();
            mean.store(green / image.width() as usize, Ordering::Relaxed);
        },
    )?;

    let viewer = context.create_node("viewer")?;
    let (stage, sent) = (stages[1].clone(), raw_sent.clone());
    let _viewer = viewer.create_subscription(
        "camera/image_raw",
        qos,
        move |image: &Image, info: &SampleInfo| {
            if image.encoding != "rgb8" || image.step != image.width * 3 {
                eprintln!(
                    "[viewer] unexpected {} image, step {}",
                    image.encoding, image.step
                );
            }
            Stage::record(&stage, info, image.data.as_ptr(), &sent);
        },
    )?;

    let resizer = context.create_node("resizer")?;
    let small_pub = resizer.create_publisher::<GrayAdapter>("camera/image_small", qos)?;
    let (stage, sent, small) = (stages[2].clone(), raw_sent.clone(), small_sent.clone());
    let _resizer = resizer.create_subscription(
        "camera/image_raw",
        SubscriptionOptions::new(qos).adapter::<RgbAdapter>(),
        move |image: &RgbImage, info: &SampleInfo| {
            Stage::record(&stage, info, image.as_raw().as_ptr(), &sent);
            let gray = shrink_to_gray(image);
            small.set(info.sequence, gray.as_raw().as_ptr());
            if let Err(e) = small_pub.publish(gray) {
                eprintln!("[resizer] {e}");
            }
        },
    )?;

    let recorder = context.create_node("recorder")?;
    let (stage, sent) = (stages[3].clone(), small_sent.clone());
    let _recorder = recorder.create_subscription(
        "camera/image_small",
        SubscriptionOptions::new(qos).adapter::<GrayAdapter>(),
        move |image: GrayImage, info: SampleInfo| {
            Stage::record(&stage, &info, image.as_raw().as_ptr(), &sent);
        },
    )?;

    let executor = SingleThreadedExecutor::new();
    for node in [&processor, &viewer, &resizer, &recorder] {
        executor.add_node(node)?;
    }
    let received = |i: usize| stages[i].lock().map_or(0, |s| s.received);
    let period = Duration::from_secs_f64(1.0 / rate);
    println!(
        "image_pipeline: {frames} frames of {width}x{height} rgb8 ({} B) at {rate} Hz, QoS sensor_data",
        width as usize * height as usize * 3
    );
    let started = Instant::now();
    let done = std::thread::scope(|s| {
        s.spawn(|| {
            for frame in 0..frames {
                let due = started + period * frame as u32;
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                let image = capture(width, height, frame);
                raw_sent.set(frame as u64 + 1, image.as_raw().as_ptr());
                if let Err(e) = image_pub.publish(image) {
                    eprintln!("[camera] {e}");
                }
            }
        });
        let patience = period * frames as u32 + Duration::from_secs(3);
        executor.spin_until(|| (0..4).all(|i| received(i) == frames), patience)
    });
    let elapsed = started.elapsed();
    context.shutdown();

    println!("ran {elapsed:.2?}; one single-threaded executor for the four subscribers\n");
    print_stages(&stages);
    println!(
        "\nconversions: RgbImage→Image {} (to_ros), Image→RgbImage {}, GrayImage→Image {}, \
         Image→GrayImage {}",
        RGB_TO_ROS.load(Ordering::Relaxed),
        RGB_FROM_ROS.load(Ordering::Relaxed),
        GRAY_TO_ROS.load(Ordering::Relaxed),
        GRAY_FROM_ROS.load(Ordering::Relaxed),
    );
    println!(
        "(green mean of the last frame's first row: {})",
        brightness.load(Ordering::Relaxed)
    );
    if !done {
        return Err(format!(
            "not every stage got every frame within the time allowed (best effort may drop: \
             received {:?} of {frames})",
            (0..4).map(received).collect::<Vec<_>>()
        )
        .into());
    }
    Ok(())
}
