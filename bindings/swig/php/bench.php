<?php

// IDs per second through the PHP extension.
//   php -d extension=build/swig/bindings/swig/php/snowflake_c.so bindings/swig/php/bench.php

declare(strict_types=1);

function rate(string $label, int $idsPerCall, callable $call, float $seconds = 1.0): void
{
    $calls = 0;
    $start = hrtime(true);
    $stop = $start + (int) ($seconds * 1e9);
    while (hrtime(true) < $stop) {
        for ($i = 0; $i < 100; $i++) {
            $call();
        }
        $calls += 100;
    }
    printf("%-30s %12.0f IDs/s\n", $label, $calls * $idsPerCall / ((hrtime(true) - $start) / 1e9));
}

$gen = new SfcGenerator('default', ['node' => ['worker' => 1]]);
$wide = new SfcGenerator(sfc_layout_parse('time:41@1ms,worker:2,seq:20', '2024-01-01'), ['node' => ['worker' => 1]]);
rate('next_id (default)', 1, fn () => $gen->next_id());
rate('next_id (seq:20)', 1, fn () => $wide->next_id());
rate('next_ids(1000) (seq:20)', 1000, fn () => $wide->next_ids(1000));
rate('decode + parts_json', 1, fn () => sfc_parts_json('discord', sfc_decode('discord', 175928847299117063)));
// The string forms benchmarks/run reports for the other languages (fixed width).
rate('sfc_format_id base32', 1, fn () => sfc_format_id(175928847299117063, 'base32'));
rate('sfc_parse_id base32', 1, fn () => sfc_parse_id('04W86BB0G4007', 'base32'));
rate('sfc_format_id base62', 1, fn () => sfc_format_id(175928847299117063, 'base62'));
rate('sfc_parse_id base62', 1, fn () => sfc_parse_id('0Czks0tP37X', 'base62'));
