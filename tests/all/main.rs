//! flitsim's integration tests, in one test binary (cargo's target `all`): one module per
//! theme, with the shared helpers in `common` (k-ary n-cubes) and `mway_common` (k-ary m-way
//! networks). Run one theme with e.g. `cargo test --test all cli::`.

mod cli;
mod cli_mway;
mod cli_routing;
mod common;
mod early_free;
mod exact_channel_rates;
mod exact_conservation;
mod exact_determinism;
mod exact_hops;
mod exact_reference;
mod exact_timing;
mod exact_zero_load;
mod experiment;
mod flows;
mod hyperx;
mod keys_reference;
mod model_cli;
mod mway_channels;
mod mway_common;
mod mway_deadlock_freedom;
mod mway_properties;
mod mway_zero_load;
mod output_columns;
mod output_directory;
mod plot;
mod pooled;
mod routing_adaptive;
mod routing_deadlock_freedom;
mod routing_hypercube_rates;
mod routing_occupancy;
mod routing_timeout;
mod saturation_criterion;
mod scale;
mod source_concurrency;
mod threads_per_point;
mod throughput_bounds;
mod traffic_arrivals;
mod traffic_hops;
mod traffic_hotspot;
mod traffic_mixture_lengths;
mod traffic_patterns;
mod traffic_saturation;
mod watchdog;
