//! Encoding and decoding a 1920x1080 rgb8 Image into existing buffers,
//! side by side with a plain copy of the same bytes (the floor), and the
//! zero-copy view decode at two image sizes (it must not depend on pixels).
//!
//! Run: `cargo bench -p hibari-msgs --bench image`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use hibari_msgs::sensor_msgs::msg::Image;
use hibari_msgs::std_msgs::msg::Header;
use hibari_msgs::{HasView, Message};

fn image(w: u32, h: u32) -> Image {
    Image {
        header: Header {
            frame_id: "camera".into(),
            ..Default::default()
        },
        height: h,
        width: w,
        encoding: "rgb8".into(),
        is_bigendian: 0,
        step: w * 3,
        data: (0..(w * h * 3) as usize).map(|i| i as u8).collect(),
    }
}

fn bench(c: &mut Criterion) {
    let img = image(1920, 1080);
    let bytes = img.to_cdr().unwrap();
    let mut g = c.benchmark_group("image_1080p");
    g.throughput(Throughput::Bytes(img.data.len() as u64));

    let mut dst = vec![0u8; bytes.len()];
    let offset = bytes.len() - img.data.len();
    g.bench_function("memcpy_floor", |b| {
        b.iter(|| dst[offset..].copy_from_slice(black_box(&img.data)))
    });
    let mut out = Vec::with_capacity(bytes.len());
    g.bench_function("encode_into_vec", |b| {
        b.iter(|| black_box(&img).encode_into_vec(&mut out).unwrap())
    });
    let mut slice = vec![0u8; bytes.len()];
    g.bench_function("encode_into_slice", |b| {
        b.iter(|| black_box(&img).encode_into_slice(&mut slice).unwrap())
    });
    let mut decoded = img.clone();
    g.bench_function("decode_into_existing", |b| {
        b.iter(|| decoded.decode_into(black_box(&bytes)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("image_view");
    for (w, h) in [(64u32, 48u32), (1920, 1080)] {
        let bytes = image(w, h).to_cdr().unwrap();
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{w}x{h}")),
            &bytes,
            |b, bytes| {
                b.iter(|| {
                    let v = Image::view(black_box(bytes)).unwrap();
                    black_box(v.data.len())
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
