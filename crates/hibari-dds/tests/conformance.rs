//! The transport contract's conformance suite, run against the DDS transport:
//! two DDS participants in this process, over loopback, acting as two
//! processes would (RTPS discovery and data over UDP).
//!
//! The participants are opened with `same_host_peers(true)` (hibari
//! participants of one host normally ignore each other: shared memory
//! carries that traffic) and `loopback(true)` (the suite pairs endpoints of
//! one participant too; normally the in-process transport delivers those).
//! The suite's domains are claimed host-wide in 1..=199, which DDS can use.
//!
//! Every check runs but those listed under `ignore`, each with why: they
//! state guarantees DDS does not give (run them with `-- --ignored`).

use hibari_dds::{DdsOptions, DdsTransport};
use hibari_transport::{DomainId, Transport};

fn open(domain: DomainId) -> Box<dyn Transport> {
    let options = DdsOptions::default().same_host_peers(true).loopback(true);
    Box::new(DdsTransport::open(domain, options).expect("open a DDS participant"))
}

hibari_transport::conformance_subset! {
    open;
    run: [
        samples_of_one_writer_arrive_in_write_order,
        every_reader_gets_every_sample_of_every_writer,
        writes_from_many_threads_keep_the_order_of_each_writer,
        a_reader_added_mid_stream_gets_every_sample_written_after_it_matched,
        a_reader_removed_mid_stream_leaves_the_others_undisturbed,
        different_topics_are_isolated,
        different_domains_are_isolated,
        local_and_serialized_payloads_both_arrive_intact,
        the_reader_waker_fires_when_a_sample_arrives,
        a_busy_polling_reader_gets_every_sample_by_taking,
        a_waker_may_write_and_take_without_deadlock,
        keep_last_overflow_drops_the_oldest_and_counts_the_loss,
        keep_all_keeps_every_sample_up_to_its_limit,
        every_sample_a_reliable_reader_took_is_acknowledged,
        a_sent_loan_arrives_and_a_dropped_one_goes_back,
        a_transient_local_late_joiner_gets_the_last_n_samples,
        a_volatile_late_joiner_gets_no_earlier_samples,
        expired_samples_are_never_taken,
        incompatible_qos_is_not_matched_and_both_sides_see_why,
        different_types_on_one_topic_are_not_matched_and_both_sides_see_why,
        matched_counts_and_events_follow_endpoint_lifetimes,
        sequence_numbers_start_at_one_and_grow_by_one_per_writer,
        source_timestamps_precede_reception_timestamps,
        publisher_ids_are_stable_per_writer_and_distinct_across_writers,
        the_graph_shows_other_participants_nodes_and_endpoints,
    ];
    ignore("DDS: a keep-last reader overwrites its oldest sample and acknowledges, so a full reader never holds a reliable writer back (DDS 2.2.3.18); hibari's shared memory and in-process transports do"): [
        a_full_reliable_reader_makes_the_writer_fail_when_set_to_fail,
        a_full_reliable_reader_blocks_the_writer_until_it_takes,
        a_full_reliable_reader_times_the_blocked_writer_out,
    ];
    ignore("DDS: a reliable writer buffers what a full keep-all reader has not acknowledged in its own history (its depth, 10 here, is its send window), so the write past the reader's limit succeeds and only a full writer window fails; a reader's resource limits do not reach the writer (DDS 2.2.3.14, 2.2.3.19)"): [
        a_full_reliable_keep_all_reader_is_bounded_by_its_limit,
    ];
    ignore("DDS best-effort over UDP (fails in about 3 runs of 8): a 10 000-sample burst overruns a socket buffer, and the samples dropped after the last one that arrives are never known to the reader (no later sequence number reveals them; best-effort has no HEARTBEAT), so `lost_total` ends at 9 474..9 975, short of 9 998; the writer itself never blocks"): [
        best_effort_readers_never_block_the_writer,
    ];
    ignore("DDS: a VOLATILE reader may get samples written before its writer matched it (DDS v1.4 2.2.3.4), and it does when they are still in flight as it is created: the writer sends each DATA to every reader of the participant (ENTITYID_UNKNOWN), so the new reader can receive samples 1..=10 before the writer knows it and sends its GAP (traced with prints in the engine; about 1 run in 10 at load 4+ on 2 cores). hibari's shared memory and in-process transports start exactly at the next sample; what DDS guarantees, everything written after the match, in order and without loss, is checked by `a_reader_added_mid_stream_gets_every_sample_written_after_it_matched`"): [
        a_reader_added_mid_stream_gets_the_later_samples_in_order,
    ];
}
