// A Rust program built with -C target-cpu=x86-64-v3: LLVM vectorizes the
// loops below into AVX2, turns mul_add into FMA and the bit methods into
// TZCNT/LZCNT/POPCNT/BMI2.  Threads share the work; results are printed
// exactly (integers, and floats as their bits), in order.
use std::thread;

fn work(seed: u64) -> (u64, u64, u32) {
    let mut x = seed;
    let mut acc = 0u64;
    let mut v = vec![0f32; 1 << 16];
    for i in 0..200_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        acc = acc
            .wrapping_add((x | 1).trailing_zeros() as u64)
            .wrapping_add((x | 1).leading_zeros() as u64)
            .wrapping_add(x.count_ones() as u64)
            .wrapping_add(x >> (x & 63))
            .wrapping_add(x.swap_bytes());
        v[(i as usize) & 0xffff] = (x >> 40) as f32;
    }
    let mut f = 0f64;
    for (i, e) in v.iter().enumerate() {
        f = (*e as f64).mul_add(1.0 / 3.0, f) + (i as f64) * 0.5;
    }
    let scaled: Vec<f32> = v.iter().map(|e| e * 1.5 + 2.0).collect();
    let s: f32 = scaled.chunks(8).map(|c| c.iter().fold(0f32, |a, b| a.max(*b))).sum();
    (acc, f.to_bits(), s.to_bits())
}

fn main() {
    let handles: Vec<_> = (0..4u64).map(|w| thread::spawn(move || work(w + 1))).collect();
    for (w, h) in handles.into_iter().enumerate() {
        let (acc, f, s) = h.join().unwrap();
        println!("worker {}: {:016x} {:016x} {:08x}", w, acc, f, s);
    }
    let ints: Vec<i32> = (0..100_000).map(|i: i32| i.wrapping_mul(2654435761u32 as i32)).collect();
    let m = ints.iter().map(|x| (x >> 3) ^ (x & 0x0f0f)).fold(0i64, |a, b| a + b as i64);
    println!("ints {} max {}", m, ints.iter().max().unwrap());
}
