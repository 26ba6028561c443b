<?php

/*
 * The PHP runner of the SWIG module: every case of tests/vectors/*.json
 * (contract.json and claims.json included), the canonical JSON compared
 * with the CLI's, a generation test, the host-wide guard (across processes)
 * and bad input (../tests/bad_input.json, shared with the Ruby runner).
 * Ends with "N passed, N failed"; exits 1 on any failure.
 *
 *   php -d extension=<builddir>/bindings/swig/php/snowflake_c.so \
 *       bindings/swig/php/test_vectors.php [VECTORS_DIR]
 *   (SNOWFLAKE_C_CLI=<builddir>/core/cli/snowflake-c to compare with the CLI,
 *   SNOWFLAKE_C_PHP_EXTENSION=<the .so> for the guard's child processes)
 *
 * PHP runs one request per thread, so the generation test uses one thread.
 */

declare(strict_types=1);

use SnowflakeC\SnowflakeError;

final class Mismatch extends Exception
{
}

$vectors = $argv[1] ?? dirname(__DIR__, 3) . '/tests/vectors';
$cli = getenv('SNOWFLAKE_C_CLI') ?: null;
/* The extension's path, for child processes (read now: the generation
 * vectors clear SNOWFLAKE_* variables). */
define('EXTENSION', getenv('SNOWFLAKE_C_PHP_EXTENSION') ?: '');
$passed = 0;
$failed = 0;
$decoded = [];

const KINDS = [SFC_FIELD_TIME => 'time', SFC_FIELD_SEQ => 'seq', SFC_FIELD_CLOCK => 'clock', SFC_FIELD_NODE => 'node'];

/* A fresh folder of this process's own (mode 0700). */
function make_dir(string $prefix): string
{
    $dir = sys_get_temp_dir() . "/$prefix-" . getmypid() . '-' . bin2hex(random_bytes(4));
    if (!mkdir($dir, 0700)) {
        throw new RuntimeException("cannot create $dir");
    }
    return $dir;
}

function remove_tree(string $path): void
{
    if (is_dir($path) && !is_link($path)) {
        foreach (array_diff(scandir($path) ?: [], ['.', '..']) as $name) {
            remove_tree("$path/$name");
        }
        rmdir($path);
    } elseif (file_exists($path) || is_link($path)) {
        unlink($path);
    }
}

/* An epoch of this run's own (2024-01-01 plus up to a day, in ms). The
 * guard's claim is host-wide and keyed on the epoch: generators of this run
 * that keep the guard on never meet those of a suite running beside it on
 * the machine, which may use the same node values. */
define('EPOCH', 1704067200000 + random_int(0, 86399999));

/* A preset's fields with the run's epoch. */
function own(string $preset): SfcLayout
{
    return sfc_layout_parse(sfc_layout_spec(sfc_layout_preset($preset)), EPOCH);
}

/* The module's warnings (E_USER_WARNING), collected as [message, file]
 * instead of printed: the vectors' generators run with the guard off, and
 * the guard's tests read what the module said. */
$warnings = [];
set_error_handler(function (int $no, string $message, string $file) use (&$warnings): bool {
    $warnings[] = [$message, $file];
    return true;
}, E_USER_WARNING);

function check(string $name, callable $test): void
{
    global $passed, $failed;
    try {
        $test();
        $passed++;
    } catch (Throwable $e) {
        $failed++;
        echo 'FAIL ', $name, ': ', get_class($e), ': ', $e->getMessage(), "\n";
    }
}

function expect_eq(string $what, mixed $got, mixed $want): void
{
    if ($got !== $want) {
        throw new Mismatch($what . ': got ' . json_encode($got) . ', want ' . json_encode($want));
    }
}

/* Runs $call, which must throw the exception for status $kind. */
function expect_error(string $kind, callable $call): SnowflakeError
{
    try {
        $call();
    } catch (SnowflakeError $e) {
        if ($e->status !== $kind || get_class($e) !== 'SnowflakeC\\' . $kind) {
            throw new Mismatch('threw ' . get_class($e) . ' (' . $e->getMessage() . "), want $kind");
        }
        return $e;
    }
    throw new Mismatch("no error, want $kind");
}

function layout_of(array $ref): SfcLayout
{
    return isset($ref['preset']) ? sfc_layout_preset($ref['preset']) : sfc_layout_parse($ref['spec'], $ref['epoch']);
}

function strs(array $values): array
{
    return array_map(fn ($v) => (string) $v, $values);
}

function close_enough(float $got, float $want): bool
{
    return abs($got - $want) <= 1e-9 * max(abs($want), 1.0);
}

function run_layout(array $c): void
{
    if (isset($c['error'])) {
        expect_error($c['error'], fn () => layout_of($c));
        return;
    }
    $x = $c['expect'];
    $layout = layout_of($c);
    $info = sfc_layout_describe($layout);
    expect_eq('spec', sfc_layout_spec($layout), $x['spec']);
    expect_eq('epoch_ms', (string) $layout->epoch_ms, $x['epoch_ms']);
    expect_eq('unit_us', (string) $layout->unit_us, $x['unit_us']);
    expect_eq('total_bits', $layout->total_bits, $x['total_bits']);
    $fields = [];
    for ($i = 0; $i < $layout->field_count; $i++) {
        $f = $layout->field($i);
        $fields[] = ['name' => $f->name, 'kind' => KINDS[$f->kind], 'bits' => $f->bits, 'shift' => $f->shift,
                     'max' => (string) $f->max];
    }
    expect_eq('fields', $fields, $x['fields']);
    if (!close_enough($info->ids_per_second, (float) $x['ids_per_second'])) {
        throw new Mismatch("ids_per_second {$info->ids_per_second}");
    }
    if (!close_enough($info->node_capacity, (float) $x['node_capacity'])) {
        throw new Mismatch("node_capacity {$info->node_capacity}");
    }
    expect_eq('time_end_ms', (string) $info->time_end_ms, $x['time_end_ms']);
    expect_eq('time_end', sfc_format_iso($info->time_end_ms), $x['time_end']);
    expect_eq('max_id', (string) $info->max_id, $x['max_id']);
}

function run_decode(array $c): void
{
    global $decoded;
    $layout = layout_of($c['layout']);
    if (isset($c['error'])) {
        expect_error($c['error'], fn () => sfc_decode($layout, $c['id']));
        return;
    }
    $parts = sfc_decode($layout, $c['id']);
    $json = sfc_parts_json($layout, $parts);
    expect_eq('json', $json, $c['json']);
    foreach ($c['fields'] as $name => $v) {
        expect_eq($name, (string) $parts->value($layout, $name), $v);
    }
    expect_eq('id', (string) $parts->id, $c['id']);
    expect_eq('encode(decode(id))', (string) sfc_encode($layout, $parts), $c['id']);
    $decoded[] = [$c['layout'], $c['id'], $json];
}

/* Both encoders: by name (sfc_encode_named) and through SfcParts (sfc_encode). */
function run_encode(array $c): void
{
    $layout = layout_of($c['layout']);
    $time_us = (int) $c['time_ms'] * 1000;
    $encoders = [
        'sfc_encode_named' => fn () => sfc_encode_named($layout, $time_us, $c['fields']),
        'sfc_encode' => function () use ($c, $layout, $time_us) {
            $parts = new SfcParts();
            $parts->time_us = $time_us;
            foreach ($c['fields'] as $name => $v) {
                $parts->set_value($layout, $name, $v);
            }
            return sfc_encode($layout, $parts);
        },
    ];
    // Parts hold a value for every field, so a vector about naming — a field
    // missing, unknown, or the time given as a field — is for sfc_encode_named.
    if (isset($c['fields']['time']) || count($c['fields']) != $layout->field_count - 1) {
        unset($encoders['sfc_encode']);
    }
    foreach ($encoders as $what => $encode) {
        try {
            if (isset($c['error'])) {
                expect_error($c['error'], $encode);
            } else {
                expect_eq('id', (string) $encode(), $c['id']);
            }
        } catch (Mismatch $e) {
            throw new Mismatch("$what: " . $e->getMessage());
        }
    }
}

function run_range(array $c): void
{
    $layout = layout_of($c['layout']);
    $call = fn () => sfc_range($layout, (int) $c['t0_ms'], (int) $c['t1_ms']);
    if (isset($c['error'])) {
        expect_error($c['error'], $call);
    } else {
        expect_eq('[min, max]', strs($call()), [$c['min'], $c['max']]);
    }
}

function run_step(SfcGenerator $g, array $s): void
{
    $x = $s['expect'];
    $now = (int) $s['now_us'];
    if ($s['call'] === 'next') {
        if (isset($x['error'])) {
            expect_error($x['error'], fn () => $g->next_at($now));
            return;
        }
        [$id, $wait] = $g->next_at($now);
        $got = $id === null ? ['wait_us' => (string) $wait] : ['id' => (string) $id];
        expect_eq('outcome', $got, $x);
    } elseif ($s['call'] === 'next_ids') {
        if (isset($x['error'])) {
            $e = expect_error($x['error'], fn () => $g->next_ids_at($now, $s['n']));
            expect_eq('ids issued before the error', strs($e->ids), $x['ids'] ?? []);
            return;
        }
        [$ids, $wait] = $g->next_ids_at($now, $s['n']);
        expect_eq('ids', strs($ids), $x['ids'] ?? []);
        expect_eq('wait_us', (string) $wait, $x['wait_us'] ?? '0');
    } else {
        throw new Mismatch('unknown call ' . json_encode($s['call']));
    }
}

/* Every SNOWFLAKE_* variable goes before a generation script or a claims case. */
function clear_snowflake_env(): void
{
    foreach (array_keys(getenv()) as $k) {
        if (str_starts_with($k, 'SNOWFLAKE_')) {
            putenv($k);
        }
    }
}

/* The guard is off: a script's clock is its own (tests/vectors/README.md). */
function run_generate(array $c): void
{
    clear_snowflake_env();
    $layout = layout_of($c['layout']);
    // The vectors give durations in ms as max_wait_ms: the option is max_wait.
    $options = [];
    foreach ($c['options'] ?? [] as $k => $v) {
        $options[preg_replace('/_ms$/', '', $k)] = $v;
    }
    $options['guard'] = false;
    if (isset($c['error'])) {
        expect_error($c['error'], fn () => new SfcGenerator($layout, $options));
        return;
    }
    $g = new SfcGenerator($layout, $options);
    try {
        foreach ($c['steps'] as $i => $s) {
            try {
                run_step($g, $s);
            } catch (Mismatch | SnowflakeError $e) {
                throw new Mismatch("step $i: " . $e->getMessage());
            }
        }
    } finally {
        $g->close();
    }
}

/* claims.json: one side of a case, a generator of its layout, node values
 * and guard, whose stats' guard is "held: …" (guard on) or "off". One with
 * the guard off warns (once per text): the warning is collected with the
 * rest. */
function claim_side(array $side): SfcGenerator
{
    $g = new SfcGenerator(layout_of($side['layout']), ['node' => $side['node'], 'guard' => $side['guard']]);
    $held = $g->stats()['guard'];
    if ($side['guard'] ? str_starts_with($held, 'held: ') : $held === 'off') {
        return $g;
    }
    $g->close();
    throw new Mismatch('stats guard: got ' . json_encode($held) . ', want ' . ($side['guard'] ? '"held: …"' : '"off"'));
}

/* `first` starts; `second` starts too, or is refused with WorkerUnavailable
 * naming this process and every string of `message`; then `first` issues, or
 * (first_closed) throws InvalidArgument holding every string of
 * `closed_message`. Both are closed, the second first, whatever happens. */
function run_claim(array $c): void
{
    clear_snowflake_env();
    $first = $second = null;
    try {
        try {
            $first = claim_side($c['first']);
        } catch (SnowflakeError $e) {
            throw new Mismatch('the first did not start: ' . get_class($e) . ': ' . $e->getMessage());
        }
        if ($c['second_starts']) {
            try {
                $second = claim_side($c['second']);
            } catch (SnowflakeError $e) {
                throw new Mismatch('the second did not start: ' . get_class($e) . ': ' . $e->getMessage());
            }
        } else {
            $e = expect_error('WorkerUnavailable', function () use ($c, &$second) {
                $second = claim_side($c['second']);
            });
            foreach (array_merge(['live process ' . getmypid()], $c['message']) as $part) {
                if (!str_contains($e->getMessage(), $part)) {
                    throw new Mismatch("'$part' is not in: " . $e->getMessage());
                }
            }
        }
        // The same generator again took the value over: the first is closed
        // and says why; anything else leaves it open.
        if ($first->closed() !== (bool) $c['first_closed']) {
            throw new Mismatch('closed() is ' . var_export($first->closed(), true));
        }
        if ($c['first_closed']) {
            $e = expect_error('InvalidArgument', fn () => $first->next_id());
            foreach ($c['closed_message'] as $part) {
                if (!str_contains($e->getMessage(), $part)) {
                    throw new Mismatch("'$part' is not in: " . $e->getMessage());
                }
            }
        } else {
            $first->next_id();
        }
    } finally {
        $second?->close();
        $first?->close();
    }
}

/* state_reserve shows in no stat: it shows in the state file, whose mark a
 * generator reserves that far ahead of its clock. On a layout of 1 us ticks
 * the mark less the reserve is the tick it was reserved at, which lies
 * between a clock reading before the generator was made and one after the
 * file was read (the keeper may move the mark on meanwhile, always a
 * reserve ahead of the clock). */
const RESERVE_SPEC = 'time:52@1us,worker:1,seq:10';
const RESERVE_EPOCH = 1704067200000;

function reserve_holds(float $value, int $ms): void
{
    $now = function (): int {
        $t = gettimeofday();
        return $t['sec'] * 1000000 + $t['usec'] - RESERVE_EPOCH * 1000;
    };
    $dir = make_dir('snowflake-c-swig');
    try {
        $before = $now();
        $g = new SfcGenerator(sfc_layout_parse(RESERVE_SPEC, RESERVE_EPOCH),
            ['node' => ['worker' => 0], 'state_dir' => $dir, 'guard' => false, 'state_reserve' => $value]);
        try {
            $state = file_get_contents("$dir/worker-0.state");
            $after = $now();
        } finally {
            $g->close();
        }
        if (!preg_match('/^mark (\d+)$/m', (string) $state, $m)) {
            throw new Mismatch("no mark in the state file: $state");
        }
        $at = (int) $m[1] - $ms * 1000;
        if ($at < $before || $at > $after) {
            throw new Mismatch("a mark $ms ms ahead of tick $at, not within [$before, $after]");
        }
    } finally {
        remove_tree($dir);
    }
}

/* A duration option as a float of ms (fractions allowed), read back from
 * the stats for max_wait_ms and max_drift_ms, from the state file for
 * state_reserve. */
function run_duration(array $c): void
{
    $key = $c['option'];
    $ms = (int) $c['seconds'] * 1000 + $c['nanos'] / 1e6;
    $make = fn () => new SfcGenerator(own('twitter'), ['node' => ['datacenter' => 0, 'worker' => 0], $key => $ms]);
    if (isset($c['error'])) {
        $e = expect_error($c['error'], $make);
        if (!str_contains($e->getMessage(), $key)) {
            throw new Mismatch('the message does not name ' . $key . ': ' . $e->getMessage());
        }
        return;
    }
    if ($key === 'state_reserve') {
        reserve_holds($ms, (int) $c['ms']);
        return;
    }
    $g = $make();
    try {
        expect_eq($key, $g->stats()[$key . '_ms'], (int) $c['ms']);
    } finally {
        $g->close();
    }
}

/* The string forms: sfc_format_id, sfc_parse_id (both forms). IDs above
 * PHP_INT_MAX cross as decimal strings. */
function run_encoding(array $c): void
{
    $enc = $c['encoding'];
    if (isset($c['error'])) {
        $e = expect_error($c['error'], fn () => isset($c['text'])
            ? sfc_parse_id($c['text'], $enc)
            : sfc_format_id($c['id'], $enc));
        foreach ($c['message_has'] ?? [] as $part) {
            if (!str_contains($e->getMessage(), $part)) {
                throw new Mismatch("'$part' is not in: " . $e->getMessage());
            }
        }
        return;
    }
    if (isset($c['text'])) {
        expect_eq('sfc_parse_id', (string) sfc_parse_id($c['text'], $enc), $c['id']);
        return;
    }
    expect_eq('default', sfc_format_id($c['id'], $enc), $c['default']);
    expect_eq('default (pad null)', sfc_format_id($c['id'], $enc, null), $c['default']);
    expect_eq('fixed (pad)', sfc_format_id($c['id'], $enc, true), $c['fixed']);
    expect_eq('shortest', sfc_format_id($c['id'], $enc, false), $c['shortest']);
    expect_eq('parse fixed', (string) sfc_parse_id($c['fixed'], $enc), $c['id']);
    expect_eq('parse shortest', (string) sfc_parse_id($c['shortest'], $enc), $c['id']);
}

/* uuid7.json: a UUIDv7's parts and canonical JSON, or the core's refusal. */
function run_uuid7(array $c): void
{
    if (isset($c['error'])) {
        $e = expect_error($c['error'], fn () => sfc_uuid7_parse($c['text']));
        foreach ($c['message_has'] as $part) {
            if (!str_contains($e->getMessage(), $part)) {
                throw new Mismatch("'$part' is not in: " . $e->getMessage());
            }
        }
        return;
    }
    $u = sfc_uuid7_parse($c['text']);
    expect_eq('uuid', $u->text, $c['uuid']);
    expect_eq('time_ms', (string) $u->unix_ms, $c['time_ms']);
    expect_eq('time', sfc_format_iso($u->unix_ms), $c['time']);
    expect_eq('rand_a', $u->rand_a, $c['rand_a']);
    expect_eq('rand_b', (string) $u->rand_b, $c['rand_b']);
    expect_eq('json', sfc_uuid7_json($u), $c['json']);
}

/* decode_as, and the order of fixed strings. */
function string_forms(): void
{
    check('sfc_decode_as gives the parts of the number, in every encoding', function () {
        $want = sfc_parts_json('discord', sfc_decode('discord', 175928847299117063));
        foreach (['dec', 'hex', 'base32', 'base36', 'base58', 'base62'] as $enc) {
            $text = sfc_format_id(175928847299117063, $enc);
            expect_eq($enc, sfc_parts_json('discord', sfc_decode_as('discord', $text, $enc)), $want);
        }
        expect_error('InvalidArgument', fn () => sfc_decode_as('discord', '0Czks0tP37X', 'hex'));
    });
    check('fixed strings sort as the IDs do', function () {
        $ids = [];
        for ($i = 0; $i < 20000; $i++) {
            $ids[] = random_int(0, PHP_INT_MAX) >> random_int(0, 62);
        }
        $ids = array_values(array_unique($ids));
        sort($ids);
        foreach (['dec', 'hex', 'base32', 'base36', 'base58', 'base62'] as $enc) {
            $texts = array_map(fn ($id) => sfc_format_id($id, $enc, true), $ids);
            shuffle($texts);
            sort($texts, SORT_STRING);
            expect_eq($enc, array_map(fn ($t) => sfc_parse_id($t, $enc), $texts), $ids);
        }
    });
    check('pad is true, false or null', function () {
        expect_eq('dec', sfc_format_id(0, 'dec'), '0');
        expect_eq('dec pad', sfc_format_id(0, 'dec', true), str_repeat('0', 20));
        expect_error('InvalidArgument', fn () => sfc_format_id(1, 'dec', 1));
    });
}

/* contract.json: the answers every language gives alike. */

/* A value of a stats or describe vector: ms values and IDs as decimal
 * strings, maps by name. */
function same(mixed $got, mixed $want): bool
{
    if (is_array($want)) {
        if (!is_array($got) || count($got) !== count($want)) {
            return false;
        }
        foreach ($want as $k => $v) {
            if (!array_key_exists($k, $got) || !same($got[$k], $v)) {
                return false;
            }
        }
        return true;
    }
    return is_string($want) && is_int($got) ? (string) $got === $want : $got === $want;
}

function expect_facts(string $what, array $got, array $want): void
{
    foreach ($want as $k => $v) {
        if (!array_key_exists($k, $got) || !same($got[$k], $v)) {
            throw new Mismatch("$what $k: got " . json_encode($got[$k] ?? null) . ', want ' . json_encode($v));
        }
    }
}

/* A twitter generator of datacenter 1, worker 1, the guard off; $extra
 * options on top. */
function contract_generator(array $extra = []): SfcGenerator
{
    return new SfcGenerator('twitter', $extra + ['node' => ['datacenter' => 1, 'worker' => 1], 'guard' => false]);
}

/* The error classes of the module, in the order of the core's statuses. */
function error_names(): array
{
    $names = [];
    for ($i = 0; ($s = sfc_status_at($i)) !== null; $i++) {
        if ($s->is_error) {
            if (get_parent_class('SnowflakeC\\' . $s->name) !== SnowflakeError::class) {
                throw new Mismatch("SnowflakeC\\{$s->name} is not a SnowflakeError");
            }
            $names[] = $s->name;
        }
    }
    return $names;
}

function table_names(string $table): array
{
    switch ($table) {
        case 'options':
            $names = [];
            for ($i = 0; ($o = sfc_option_at($i)) !== null; $i++) {
                $names[] = $o->name;
            }
            return $names;
        case 'errors':
            return error_names();
        case 'stats':
            $g = contract_generator();
            $keys = array_keys($g->stats());
            $g->close();
            return $keys;
        case 'describe':
            return array_keys(sfc_describe('twitter'));
        case 'fields':
            return array_keys(sfc_describe('twitter')['fields'][0]);
    }
    throw new Mismatch("unknown table $table");
}

/* decode, encode and range of IDs made elsewhere, with no layout named: the
 * module takes an SfcLayout or a preset's name, so that none is null, which
 * it refuses with the case's kind (in a message of its own: no trio reaches
 * the core's sfc_layout_resolve_for_ids here). */
function run_for_ids(array $c): void
{
    $call = match ($c['for_ids']) {
        'decode' => fn () => sfc_decode(null, $c['id']),
        'encode' => fn () => sfc_encode_named(null, (int) $c['time_ms'] * 1000, $c['fields']),
        'range' => fn () => sfc_range(null, (int) $c['t0_ms'], (int) $c['t1_ms']),
    };
    $e = expect_error($c['error'], $call);
    if (!str_contains($e->getMessage(), 'layout')) {
        throw new Mismatch('the message does not name the layout: ' . $e->getMessage());
    }
}

/* What a new generator says: the module tells each text once per process,
 * without its kind, so each warning of the case is a text told now holding
 * every string of its message_has, in order, or one told before; nothing
 * else is told. */
function run_warnings(array $c, callable $make): void
{
    global $warnings;
    $before = array_column($warnings, 0);
    [$told] = warnings_of(fn () => $make()->close());
    $told = array_column($told, 0);
    $at = -1;
    foreach ($c['warnings'] as $w) {
        $has = function (string $text) use ($w): bool {
            foreach ($w['message_has'] as $part) {
                if (!str_contains($text, $part)) {
                    return false;
                }
            }
            return true;
        };
        $i = array_key_first(array_filter($told, fn ($t) => $t !== null && $has($t)));
        if ($i === null) {
            if (!array_filter($before, $has)) {
                throw new Mismatch("no {$w['kind']} warning holds " . json_encode($w['message_has']));
            }
            continue;
        }
        if ($i < $at) {
            throw new Mismatch("{$w['kind']} told out of order: " . json_encode($told));
        }
        $at = $i;
        $told[$i] = null;
    }
    $left = array_values(array_filter($told, fn ($t) => $t !== null));
    if ($left) {
        throw new Mismatch('warnings the case does not have: ' . json_encode($left));
    }
}

function run_contract(array $c): void
{
    putenv('SNOWFLAKE_C_CONTRACT_UNSET');
    if (isset($c['table'])) {
        expect_eq($c['table'], table_names($c['table']), $c['names']);
        return;
    }
    if (isset($c['for_ids'])) {
        run_for_ids($c);
        return;
    }
    if (isset($c['call'])) {
        $g = contract_generator();
        $g->close();
        $make = fn () => $c['call'] === 'next_ids' ? $g->next_ids(10) : $g->{$c['call']}();
    } elseif (array_key_exists('option', $c)) {
        $make = fn () => contract_generator([$c['option'] => $c['value']]);
    } else {
        $args = $c['args'];
        if (isset($args['layout_object'])) {
            // A Layout object is made first; the generator takes it as its layout.
            $args['layout'] = layout_of($args['layout_object']);
            unset($args['layout_object']);
        }
        $make = fn () => new SfcGenerator($args + ['node' => $c['node'], 'guard' => $c['guard'] ?? false]);
    }
    if (isset($c['error'])) {
        $e = expect_error($c['error'], $make);
        // The message in PHP's terms: the options are named as the core
        // names them (snake_case), as PHP takes them.
        $said = $c['message_in_terms']['snake'] ?? null;
        if ($said !== null && !str_contains($e->getMessage(), $said)) {
            throw new Mismatch("'$said' is not in: " . $e->getMessage());
        }
        return;
    }
    if (isset($c['warnings'])) {
        run_warnings($c, $make);
        return;
    }
    $g = $make();
    if (!$g instanceof SfcGenerator) {
        return;
    }
    try {
        if (isset($c['stats'])) {
            expect_facts('stats', $g->stats(), $c['stats']);
        }
        if (isset($c['describe'])) {
            expect_facts('describe', sfc_describe($g->layout()), $c['describe']);
        }
    } finally {
        $g->close();
    }
}

function kind_of_case(array $c): ?string
{
    return match (true) {
        isset($c['first'], $c['second']) => 'claim',
        isset($c['encoding']) => 'encoding',
        isset($c['uuid']) || isset($c['text'], $c['message_has']) => 'uuid7',
        isset($c['option'], $c['nanos']) => 'duration',
        isset($c['table']) || isset($c['call']) || isset($c['args']) || isset($c['option'])
            || isset($c['for_ids']) => 'contract',
        isset($c['steps']) || isset($c['options']) => 'generate',
        isset($c['t0_ms']) => 'range',
        isset($c['time_ms']) => 'encode',
        isset($c['layout'], $c['id']) => 'decode',
        isset($c['spec']) || isset($c['preset']) => 'layout',
        default => null,
    };
}

function run_vectors(string $dir): void
{
    $files = glob($dir . '/*.json');
    sort($files);
    if (!$files) {
        throw new RuntimeException("no vector files in $dir");
    }
    foreach ($files as $path) {
        $cases = json_decode(file_get_contents($path), true, 512, JSON_THROW_ON_ERROR);
        if (!array_is_list($cases)) {
            continue; // schema.json
        }
        foreach ($cases as $c) {
            check(basename($path) . ': ' . $c['description'], function () use ($c) {
                match (kind_of_case($c)) {
                    'layout' => run_layout($c),
                    'decode' => run_decode($c),
                    'encode' => run_encode($c),
                    'range' => run_range($c),
                    'generate' => run_generate($c),
                    'duration' => run_duration($c),
                    'encoding' => run_encoding($c),
                    'uuid7' => run_uuid7($c),
                    'contract' => run_contract($c),
                    'claim' => run_claim($c),
                    default => throw new Mismatch('unknown case shape'),
                };
            });
        }
    }
}

/* The same IDs through `snowflake-c decode --json`: byte-for-byte the same. */
function compare_with_cli(?string $cli): void
{
    global $decoded;
    if ($cli === null || !is_executable($cli)) {
        echo "note: SNOWFLAKE_C_CLI not set, canonical JSON not compared with the CLI\n";
        return;
    }
    $groups = [];
    foreach ($decoded as [$ref, $id, $json]) {
        $groups[json_encode($ref)][] = [$ref, $id, $json];
    }
    foreach ($groups as $rows) {
        $ref = $rows[0][0];
        $args = isset($ref['preset']) ? ['--preset', $ref['preset']] : ['--layout', $ref['spec'], '--epoch', $ref['epoch']];
        check('CLI decode --json ' . implode(' ', $args), function () use ($cli, $args, $rows) {
            $cmd = array_merge([$cli, 'decode'], $args, ['--json'], array_column($rows, 1));
            exec(implode(' ', array_map('escapeshellarg', $cmd)) . ' 2>&1', $lines, $rc);
            expect_eq('exit status', $rc, 0);
            expect_eq('lines', $lines, array_column($rows, 2));
        });
    }
}

function generation_smoke(): void
{
    check('one generator: unique and increasing across next_id and next_ids', function () {
        $g = new SfcGenerator(own('default'), ['node' => ['worker' => 1]]);
        $ids = [];
        for ($i = 0; $i < 200; $i++) {
            $ids[] = $g->next_id();
            array_push($ids, ...$g->next_ids(100));
        }
        for ($i = 1; $i < count($ids); $i++) {
            if (!($ids[$i - 1] < $ids[$i])) {
                throw new Mismatch("not increasing at $i");
            }
        }
        expect_eq('distinct IDs', count(array_unique($ids)), count($ids));
        expect_eq('ids_issued', $g->stats()['ids_issued'], count($ids));
        $g->close();
    });
    check('IDs decode to now and to the node value', function () {
        $layout = own('twitter');
        $g = new SfcGenerator($layout, ['node' => ['datacenter' => 3, 'worker' => '7']]);
        $parts = sfc_decode($layout, $g->next_id());
        expect_eq('worker', $parts->value($layout, 'worker'), 7);
        expect_eq('datacenter', $parts->value($layout, 'datacenter'), 3);
        if (abs($parts->time_ms - microtime(true) * 1000) > 5000) {
            throw new Mismatch('time is not now');
        }
        expect_eq('node_sources', $g->stats()['node_sources'], ['datacenter' => 'explicit', 'worker' => 'explicit']);
        $g->close();
    });
    check('node values from the pool of a state directory: distinct, released on close', function () {
        $dir = sys_get_temp_dir() . '/snowflake-c-swig-' . getmypid();
        mkdir($dir);
        try {
            $layout = own('default');
            $opts = ['node' => ['worker' => 'auto'], 'state_dir' => $dir];
            $a = new SfcGenerator($layout, $opts);
            $b = new SfcGenerator(['layout' => sfc_layout_spec($layout), 'epoch' => EPOCH] + $opts);
            expect_eq('sources', [$a->stats()['node_sources'], $b->stats()['node_sources']], [['worker' => 'pool'], ['worker' => 'pool']]);
            $values = [$a->stats()['node']['worker'], $b->stats()['node']['worker']];
            if ($values[0] === $values[1]) {
                throw new Mismatch("both generators hold worker {$values[0]}");
            }
            $id = $a->next_id();
            expect_eq('worker in the ID', sfc_decode($layout, $id)->value($layout, 'worker'), $values[0]);
            $a->close();
            $c = new SfcGenerator($layout, $opts);
            expect_eq('released value taken again', $c->stats()['node']['worker'], $values[0]);
            if (!($c->next_id() > $id)) {
                throw new Mismatch('the ID went backwards across close');
            }
            $b->close();
            $c->close();
        } finally {
            array_map('unlink', glob("$dir/*") ?: []);
            rmdir($dir);
        }
    });
}

/* The layouts of the guard's tests, with the run's epoch: twitter's fields,
 * and one 10-bit field over the same bits (its worker 35 is datacenter 1,
 * worker 3), whose IDs are the same: one claim. */
const SPLIT = 'time:41@1ms,datacenter:5,worker:5,seq:12';
const WIDE = 'time:41@1ms,worker:10,seq:12';

/* The guard in another PHP process: "started", or the class and message of
 * the error creating a generator of the layout $argv[1], epoch $argv[2] and
 * node values $argv[3] (JSON) there. */
const GUARD_CHILD = <<<'PHP'
    try {
        $layout = sfc_layout_parse($argv[1], $argv[2]);
        (new SfcGenerator($layout, ['node' => json_decode($argv[3], true)]))->close();
        echo "started\n";
    } catch (SnowflakeC\SnowflakeError $e) {
        echo get_class($e), "\n", $e->getMessage(), "\n";
    }
    PHP;

/* Its output lines. The extension is loaded from SNOWFLAKE_C_PHP_EXTENSION
 * (run-tests.sh sets it), else from php.ini. */
function guard_child(string $spec, array $node): array
{
    $cmd = array_merge([PHP_BINARY], EXTENSION ? ['-d', 'extension=' . EXTENSION] : [],
                       ['-r', GUARD_CHILD, $spec, (string) EPOCH, json_encode($node)]);
    $proc = proc_open($cmd, [1 => ['pipe', 'w']], $pipes);
    if (!$proc) {
        throw new Mismatch('cannot start ' . PHP_BINARY);
    }
    $out = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    $rc = proc_close($proc);
    if ($rc !== 0) {
        throw new Mismatch("the child exited with $rc (is SNOWFLAKE_C_PHP_EXTENSION the extension's path?): $out");
    }
    return explode("\n", rtrim($out, "\n"));
}

/* WorkerUnavailable naming this process as the holder. */
function expect_held_here(string $what, string $class, string $message = ''): void
{
    expect_eq($what, $class, 'SnowflakeC\\WorkerUnavailable');
    if (!str_contains($message, 'live process ' . getmypid())) {
        throw new Mismatch("$what: the message does not name pid " . getmypid() . ": $message");
    }
}

/* The warnings given while $make runs, and what it returned. */
function warnings_of(callable $make): array
{
    global $warnings;
    $before = count($warnings);
    $made = $make();
    return [array_slice($warnings, $before), $made];
}

/* The host-wide guard: one claim per ID space and node bits. */
function guard(): void
{
    $split = fn () => sfc_layout_parse(SPLIT, EPOCH);
    $wide = fn () => sfc_layout_parse(WIDE, EPOCH);
    $node = ['datacenter' => 1, 'worker' => 3];
    check('guard: another process with the same value gets WorkerUnavailable naming this one', function () use ($split, $node) {
        $g = new SfcGenerator($split(), ['node' => $node]);
        try {
            $held = $g->stats()['guard'];
            if (!str_starts_with($held, 'held: ')) {
                throw new Mismatch('stats guard ' . json_encode($held));
            }
            expect_held_here('the other process', ...guard_child(SPLIT, $node));
            expect_eq('the holder still issues IDs', count($g->next_ids(100)), 100);
        } finally {
            $g->close();
        }
        expect_eq('another process once the value is released', guard_child(SPLIT, $node), ['started']);
    });
    check('guard: the same generator again in this process takes the value over', function () use ($split, $node) {
        $g = new SfcGenerator($split(), ['node' => $node]);
        $again = null;
        try {
            $last = max($g->next_ids(100));
            $again = new SfcGenerator($split(), ['node' => $node]);
            if (!($again->next_id() > $last)) {
                throw new Mismatch('the newer one starts after the older');
            }
            $e = expect_error('InvalidArgument', fn () => $g->next_id());
            expect_eq('the older one says why', $e->getMessage(),
                'the generator is closed: a newer generator of this process took node value '
                . 'datacenter=1,worker=3 (a cell or a reload run again); use that one');
            (new SfcGenerator($split(), ['node' => ['datacenter' => 1, 'worker' => 4]]))->close();
        } finally {
            $again?->close();
            $g->close();
        }
        (new SfcGenerator($split(), ['node' => $node, 'guard' => true]))->close();
    });
    check('guard: field names do not split the claim', function () use ($split, $wide, $node) {
        $g = new SfcGenerator($split(), ['node' => $node]);
        try {
            $e = expect_error('WorkerUnavailable', fn () => new SfcGenerator($wide(), ['node' => ['worker' => 35]]));
            expect_held_here('this process', get_class($e), $e->getMessage());
            expect_held_here('another process', ...guard_child(WIDE, ['worker' => 35]));
            (new SfcGenerator($wide(), ['node' => ['worker' => 36]]))->close();
        } finally {
            $g->close();
        }
        (new SfcGenerator($wide(), ['node' => ['worker' => 35]]))->close();
    });
    check('guard: off, two generators share a value', function () use ($split, $node) {
        $a = new SfcGenerator($split(), ['node' => $node, 'guard' => false]);
        $b = new SfcGenerator($split(), ['node' => $node, 'guard' => false]);
        expect_eq('stats guard', [$a->stats()['guard'], $b->stats()['guard']], ['off', 'off']);
        $workers = array_map(fn ($id) => sfc_decode($split(), $id)->value($split(), 'worker'), [$a->next_id(), $b->next_id()]);
        expect_eq('worker in both', $workers, [3, 3]);
        $a->close();
        $b->close();
    });
    check('guard: off warns once per text with the caller\'s line, a guarded generator does not', function () {
        // A field name no other test uses: its text is new to this process.
        $layout = sfc_layout_parse('time:41@1ms,unguarded:10,seq:12', EPOCH);
        $made = [];
        try {
            [$told, $made[]] = warnings_of(fn () => new SfcGenerator($layout, ['node' => 5, 'guard' => false]));
            expect_eq('warnings', count($told), 1);
            [$message, $file] = $told[0];
            if ($file !== __FILE__ || !str_contains($message, 'unguarded=5') || !str_contains($message, 'not guarded')) {
                throw new Mismatch('the warning: ' . json_encode($told[0]));
            }
            [$told, $made[]] = warnings_of(fn () => new SfcGenerator($layout, ['node' => 5, 'guard' => false]));
            expect_eq('the same text again', $told, []);
            [$told, $made[]] = warnings_of(fn () => new SfcGenerator($layout, ['node' => 6, 'guard' => false]));
            expect_eq('another text', count($told), 1);
            [$told, $made[]] = warnings_of(fn () => new SfcGenerator($layout, ['node' => 7]));
            expect_eq('guarded', $told, []);
        } finally {
            foreach ($made as $g) {
                $g->close();
            }
        }
    });
    check('guard: a warning made an error throws from new, each time, and leaves nothing held', function () {
        // With a state_dir, whose lock a generator left behind would keep.
        $dir = make_dir('snowflake-c-swig');
        $opts = ['node' => 8, 'guard' => false, 'state_dir' => $dir];
        $layout = sfc_layout_parse('time:41@1ms,unguarded:10,seq:12', EPOCH);
        try {
            set_error_handler(function (int $no, string $message): bool {
                throw new ErrorException($message, 0, $no);
            }, E_USER_WARNING);
            try {
                for ($i = 0; $i < 2; $i++) {
                    try {
                        (new SfcGenerator($layout, $opts))->close();
                        throw new Mismatch('no error');
                    } catch (ErrorException $e) {
                        if (!str_contains($e->getMessage(), 'unguarded=8')) {
                            throw new Mismatch('threw ' . $e->getMessage());
                        }
                    }
                }
            } finally {
                restore_error_handler();
            }
            [$told, $g] = warnings_of(fn () => new SfcGenerator($layout, $opts));
            $g->close();
            expect_eq('warnings once not an error', count($told), 1);
        } finally {
            remove_tree($dir);
        }
    });
    check('node values from env:NAME', function () {
        putenv('SNOWFLAKE_C_SWIG_INDEX=6');
        try {
            $g = new SfcGenerator(own('twitter'), ['node' => ['datacenter' => 'env:SNOWFLAKE_C_SWIG_INDEX', 'worker' => 3]]);
            expect_eq('node', $g->stats()['node'], ['datacenter' => 6, 'worker' => 3]);
            $g->close();
        } finally {
            putenv('SNOWFLAKE_C_SWIG_INDEX');
        }
    });
}

/* A layout whose sequence runs out at once (2 IDs per 1 ms tick): the
 * generator waits for the clock on almost every call. */
function waiting(): void
{
    check('waiting for the clock sleeps: unique IDs, the clock read after each tick, no busy loop', function () {
        $g = new SfcGenerator(sfc_layout_parse('time:41@1ms,worker:4,seq:1', EPOCH), ['node' => ['worker' => 2]]);
        $ids = $g->next_ids(200);
        for ($i = 0; $i < 100; $i++) {
            $ids[] = $g->next_id();
        }
        expect_eq('distinct IDs', count(array_unique($ids)), 300);
        // 300 IDs at 2 a tick span 150 ticks at least, none ahead of the
        // clock: the calls waited for the clock to reach each tick.
        $ticks = array_map(fn ($id) => $id >> 5, $ids);
        $span = max($ticks) - min($ticks) + 1;
        if ($span < 150) {
            throw new Mismatch("IDs over $span ticks, not 150 or more");
        }
        $t = gettimeofday();
        $now = intdiv($t['sec'] * 1000000 + $t['usec'], 1000) - EPOCH;
        if (max($ticks) > $now) {
            throw new Mismatch('an ID at tick ' . max($ticks) . ", ahead of the clock's $now");
        }
        // A wait is a sleep until the tick the core names, not a loop
        // asking again: a few waits a tick, not thousands.
        $waits = $g->stats()['waits'];
        if ($waits > 8 * $span) {
            throw new Mismatch("$waits waits for $span ticks: a busy loop");
        }
        $g->close();
    });
}

function bad_input(): void
{
    $gen = fn () => new SfcGenerator(own('default'), ['node' => ['worker' => 1]]);
    // Bad input only PHP can give, beside the shared list.
    $cases = [
        ['encode null parts', 'InvalidArgument', fn () => sfc_encode('twitter', null)],
        ['set an unknown field', 'InvalidArgument', fn () => (new SfcParts())->set_value('twitter', 'shard', 1)],
        ['a layout field index out of range', 'InvalidArgument', fn () => sfc_layout_preset('twitter')->field(9)],
        ['a node value that is an object', 'InvalidArgument',
         fn () => new SfcGenerator('default', ['node' => ['worker' => new stdClass()]])],
        ['a negative batch', 'InvalidArgument', fn () => $gen()->next_ids(-1)],
        ['a batch too large', 'InvalidArgument', fn () => $gen()->next_ids(1 << 40)],
        ['a closed generator', 'InvalidArgument', function () use ($gen) {
            $g = $gen();
            $g->close();
            $g->next_id();
        }],
        ['a clock reading that is not an integer', 'InvalidArgument', fn () => $gen()->next_at('soon')],
        ['a layout that is a SWIG pointer object', 'InvalidArgument', fn () => sfc_decode(new SWIG\_p_int(), 1)],
    ];
    // A case of bad_input.json: a function of the module, or the constructor.
    $shared = json_decode(file_get_contents(dirname(__DIR__) . '/tests/bad_input.json'), true, 512, JSON_THROW_ON_ERROR);
    foreach ($shared as $c) {
        $call = $c['call'] === 'generator'
            ? fn () => (new SfcGenerator(...$c['args']))->close()
            : fn () => ('sfc_' . $c['call'])(...$c['args']);
        $cases[] = [$c['name'], $c['error'], $call];
    }
    foreach ($cases as [$name, $kind, $call]) {
        check("bad input: $name throws $kind", fn () => expect_error($kind, $call));
    }
    check('wrong objects and copies throw, never crash', function () {
        $calls = [
            fn () => sfc_parts_json('twitter', new SWIG\_p_int()),
            fn () => sfc_encode('twitter', sfc_layout_preset('twitter')),
            fn () => (new ReflectionClass('SfcGenerator'))->newInstanceWithoutConstructor(),
            fn () => unserialize('O:9:"SfcLayout":0:{}'),
            fn () => clone sfc_layout_preset('twitter'),
        ];
        foreach ($calls as $i => $call) {
            try {
                $call();
                throw new Mismatch("call $i: no error");
            } catch (TypeError | Error | Exception $e) {
                if ($e instanceof Mismatch) {
                    throw $e;
                }
            }
        }
    });
    check('every error is a SnowflakeError with the status name and number', function () {
        $e = expect_error('InvalidLayout', fn () => sfc_layout_preset('flickr'));
        expect_eq('code', $e->getCode(), SFC_INVALID_LAYOUT);
        if (!str_contains($e->getMessage(), 'flickr')) {
            throw new Mismatch('message does not name the preset');
        }
    });
}

run_vectors($vectors);
compare_with_cli($cli);
generation_smoke();
guard();
waiting();
string_forms();
bad_input();
echo "$passed passed, $failed failed\n";
exit($failed === 0 ? 0 : 1);
