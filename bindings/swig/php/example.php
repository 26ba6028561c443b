<?php

// php -d extension=build/swig/bindings/swig/php/snowflake_c.so bindings/swig/php/example.php

declare(strict_types=1);

// A generator: a preset (or sfc_layout_parse($spec, $epoch)) and the node
// values that make it unique. Keep one per process.
$gen = new SfcGenerator('twitter', ['node' => ['datacenter' => 1, 'worker' => 3]]);
$id = $gen->next_id();
$batch = $gen->next_ids(1000);
echo "$id then ", count($batch), ' more, last ', end($batch), "\n";

// Decoding needs no generator: the same JSON as `snowflake-c decode --json`.
$parts = sfc_decode('discord', 175928847299117063);
echo sfc_parts_json('discord', $parts), "\n";
echo 'worker ', $parts->value('discord', 'worker'), ' at ', sfc_format_iso($parts->time_ms), "\n";

// And back, from field values by name.
echo sfc_encode_named('discord', $parts->time_us, ['worker' => 1, 'process' => 0, 'seq' => 7]), "\n";

// The IDs of one day, for a range scan.
[$min, $max] = sfc_range('twitter', 1700000000000, 1700086399999);
echo "WHERE id BETWEEN $min AND $max\n";

// IDs above PHP_INT_MAX (64-bit layouts) come back as decimal strings.
var_dump(sfc_decode('discord', '18446744073709551615')->id);

try {
    new SfcGenerator('twitter', ['node' => ['worker' => 3]]);
} catch (SnowflakeC\InvalidArgument $e) {
    echo $e->status, ': ', substr($e->getMessage(), 0, 60), "…\n";
}
echo $gen->stats()['ids_issued'], "\n";
$gen->close();
