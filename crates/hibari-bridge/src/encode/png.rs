//! `compression: "png"` (bridge.md §1.5): the JSON text packed into an RGB
//! image, as rosbridge's `pngcompression.encode` does — width
//! ⌊√(len/3)⌋, height enough for the rest, padded with `\n` — saved as a
//! PNG (8-bit RGB, zlib-compressed rows with filter 0) and sent base64 in
//! `{"op":"png","data":…}`. roslibjs decodes it with `fast-png` and parses
//! the text (the trailing newlines are JSON whitespace).

use base64::Engine as _;

/// The CRC-32 (ISO-HDLC) PNG chunks end with.
fn crc32(parts: &[&[u8]]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (n, slot) in t.iter_mut().enumerate() {
            let mut c = n as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    let mut c = 0xffff_ffffu32;
    for part in parts {
        for &b in *part {
            c = table[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
        }
    }
    c ^ 0xffff_ffff
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(&[kind, data]).to_be_bytes());
}

/// The PNG file of `text` laid out as rosbridge lays it out.
pub(crate) fn png_of(text: &[u8]) -> Vec<u8> {
    let len = text.len().max(1);
    let width = (((len as f64) / 3.0).sqrt().floor() as usize).max(1);
    let height = len.div_ceil(3).div_ceil(width);
    let row = width * 3;
    let mut raw = Vec::with_capacity((row + 1) * height);
    for y in 0..height {
        raw.push(0); // filter: none
        let from = (y * row).min(text.len());
        let to = ((y + 1) * row).min(text.len());
        raw.extend_from_slice(&text[from..to]);
        raw.resize(raw.len() + row - (to - from), b'\n');
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&(width as u32).to_be_bytes());
    ihdr.extend_from_slice(&(height as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit, RGB, deflate, filter 0, no interlace
    let idat = miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6);
    let mut out = Vec::with_capacity(idat.len() + 64);
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The `{"op":"png","data":…}` message carrying `json`.
pub(crate) fn png_message(json: &[u8]) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(png_of(json));
    let mut s = String::with_capacity(data.len() + 24);
    s.push_str(r#"{"op":"png","data":""#);
    s.push_str(&data);
    s.push_str("\"}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_is_the_png_one() {
        // The IEND chunk's CRC is a constant of every PNG file.
        assert_eq!(crc32(&[b"IEND"]), 0xae42_6082);
        assert_eq!(crc32(&[b"123456789"]), 0xcbf4_3926);
    }

    #[test]
    fn the_image_holds_the_text_padded_with_newlines_in_rosbridges_shape() {
        let text = br#"{"op":"publish","topic":"/a","msg":{"data":"hi"}}"#; // 49 bytes
        let png = png_of(text);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((width, height), (4, 5)); // ⌊√(49/3)⌋ = 4, ⌈(49/3)/4⌉ = 5
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&png[41..41 + idat_len]).unwrap();
        let pixels: Vec<u8> = raw.chunks(13).flat_map(|r| r[1..].to_vec()).collect();
        assert_eq!(&pixels[..text.len()], text);
        assert!(pixels[text.len()..].iter().all(|&b| b == b'\n'));
    }
}
