//! Publish → take latency in one process, for a 64-byte and a 1920x1080 rgb8
//! image (6.2 MB). The sample is handed over, never copied, so both sizes
//! must cost the same; a plain clone of the big image is measured beside
//! them as the cost a copy would add.
//!
//! Each iteration: wrap the message (one allocation), write, take, and get
//! the message back (moved out with one reader; borrowed by two), so the
//! next iteration reuses it. Readers have a waker that sets a flag, as an
//! executor's would, so every write pays for waking.
//!
//! Run: `cargo bench -p hibari-inproc --bench handover`

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use hibari_inproc::InprocTransport;
use hibari_msgs::sensor_msgs::msg::Image;
use hibari_transport::{
    Endpoint, EndpointSpec, Notify, Payload, QosProfile, Reader, ReaderOptions, Writer,
    WriterOptions,
};

fn flag_waker() -> Arc<dyn Notify> {
    let ready = AtomicBool::new(false);
    Arc::new(move || ready.store(true, Ordering::Release))
}

fn image(bytes: usize) -> Image {
    Image {
        height: 1,
        width: bytes as u32 / 3,
        encoding: "rgb8".into(),
        step: bytes as u32,
        data: vec![7; bytes],
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    let sizes = [("64B", 64), ("1080p_rgb8", 1920 * 1080 * 3)];
    let mut g = c.benchmark_group("inproc_handover");
    for (name, bytes) in sizes {
        let t = InprocTransport::isolated(0);
        let spec = EndpointSpec::new::<Image>("/bench", QosProfile::default().keep_last(1));
        let reader = t.reader(&spec, &ReaderOptions::default()).unwrap();
        reader.set_notify(Some(flag_waker()));
        let writer = t.writer(&spec, &WriterOptions::default()).unwrap();
        let mut msg = Some(image(bytes));
        g.bench_function(BenchmarkId::new("one_reader_owns", name), |b| {
            b.iter(|| {
                writer
                    .write(Payload::from_message(msg.take().unwrap()))
                    .unwrap();
                let s = reader.take().unwrap();
                msg = Some(s.payload.into_owned::<Image>().unwrap());
            })
        });

        let second = t.reader(&spec, &ReaderOptions::default()).unwrap();
        second.set_notify(Some(flag_waker()));
        g.bench_function(BenchmarkId::new("two_readers_borrow", name), |b| {
            b.iter(|| {
                writer
                    .write(Payload::from_message(msg.take().unwrap()))
                    .unwrap();
                let a = reader.take().unwrap().payload;
                let bb = second.take().unwrap().payload;
                black_box(a.clone().into_shared::<Image>().unwrap().data.len());
                black_box(bb.into_shared::<Image>().unwrap().data.len());
                msg = Some(a.into_owned::<Image>().unwrap());
            })
        });
        drop(second);
    }
    let big = image(1920 * 1080 * 3);
    g.bench_function("copy_baseline/1080p_rgb8_clone", |b| {
        b.iter(|| black_box(big.clone()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
