// std::sync::mpsc: several producers, one consumer, a bounded channel that
// blocks its senders, and a receive with a timeout.
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

fn main() {
    let (tx, rx) = mpsc::channel();
    for id in 0..3u64 {
        let tx = tx.clone();
        thread::spawn(move || {
            for i in 0..100u64 {
                tx.send(id * 1000 + i).unwrap();
            }
        });
    }
    drop(tx);
    let mut got: Vec<u64> = rx.iter().collect();
    got.sort();
    println!("received {} values, sum {}", got.len(), got.iter().sum::<u64>());

    let (stx, srx) = mpsc::sync_channel(2);
    let producer = thread::spawn(move || {
        for i in 0..10 {
            stx.send(i).unwrap();
        }
    });
    let mut order = Vec::new();
    for v in srx.iter() {
        order.push(v);
    }
    producer.join().unwrap();
    println!("bounded channel, in order: {:?}", order);

    let (_keep, quiet) = mpsc::channel::<u8>();
    println!("timed out: {:?}", quiet.recv_timeout(Duration::from_millis(20)).is_err());
}
