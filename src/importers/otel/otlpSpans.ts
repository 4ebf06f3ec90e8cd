/**
 * OTLP JSON (ExportTraceServiceRequest: resourceSpans -> scopeSpans -> spans)
 * parsed with zod into flat spans with plain attribute values (AnyValue
 * unwrapped), grouped by trace and ordered by start time. Pure.
 */
import { z } from 'zod';
import { parseWith } from '../../model';

type AnyValueT = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: AnyValueT[] };
  kvlistValue?: { values?: { key: string; value?: AnyValueT }[] };
};
const AnyValueSchema: z.ZodType<AnyValueT> = z.lazy(() =>
  z.looseObject({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    intValue: z.union([z.string(), z.number()]).optional(),
    doubleValue: z.number().optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.looseObject({ values: z.array(AnyValueSchema).optional() }).optional(),
    kvlistValue: z
      .looseObject({ values: z.array(z.looseObject({ key: z.string(), value: AnyValueSchema.optional() })).optional() })
      .optional(),
  }),
);
const KeyValueSchema = z.looseObject({ key: z.string(), value: AnyValueSchema.optional() });
const Nanos = z.union([z.string().regex(/^\d+$/, 'expected a decimal number of nanoseconds'), z.number()]);
const SpanSchema = z.looseObject({
  traceId: z.string().min(1),
  spanId: z.string().min(1),
  parentSpanId: z.string().optional(),
  name: z.string(),
  startTimeUnixNano: Nanos,
  endTimeUnixNano: Nanos.optional(),
  attributes: z.array(KeyValueSchema).optional(),
  events: z
    .array(
      z.looseObject({
        name: z.string(),
        timeUnixNano: Nanos.optional(),
        attributes: z.array(KeyValueSchema).optional(),
      }),
    )
    .optional(),
  status: z
    .looseObject({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })
    .optional(),
});
export const ExportRequestSchema = z.looseObject({
  resourceSpans: z.array(
    z.looseObject({
      resource: z.looseObject({ attributes: z.array(KeyValueSchema).optional() }).optional(),
      scopeSpans: z.array(z.looseObject({ spans: z.array(SpanSchema).optional() })).optional(),
    }),
  ),
});

export type Attrs = Record<string, unknown>;

export interface FlatSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: bigint;
  end?: bigint;
  attrs: Attrs;
  resource: Attrs;
  events: { name: string; time?: bigint; attrs: Attrs }[];
  error?: string;
}

export function anyValue(v: AnyValueT | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.bytesValue !== undefined) return v.bytesValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  if (v.kvlistValue) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
  return undefined;
}

function attrs(list: { key: string; value?: AnyValueT }[] | undefined): Attrs {
  const out: Attrs = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

const nanos = (v: string | number) => BigInt(typeof v === 'number' ? Math.trunc(v) : v);

/** Parses one ExportTraceServiceRequest; `where` names it in errors (`file: line 3`). */
export function flattenSpans(value: unknown, where: string): FlatSpan[] {
  const req = parseWith(ExportRequestSchema, value, where);
  const out: FlatSpan[] = [];
  for (const rs of req.resourceSpans) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const code = s.status?.code;
        const isError = code === 2 || code === 'STATUS_CODE_ERROR';
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          name: s.name,
          start: nanos(s.startTimeUnixNano),
          end: s.endTimeUnixNano === undefined ? undefined : nanos(s.endTimeUnixNano),
          attrs: attrs(s.attributes),
          resource,
          events: (s.events ?? []).map((e) => ({
            name: e.name,
            time: e.timeUnixNano === undefined ? undefined : nanos(e.timeUnixNano),
            attrs: attrs(e.attributes),
          })),
          error: isError ? s.status?.message || 'error' : undefined,
        });
      }
    }
  }
  return out;
}

/** Spans grouped by trace (first-seen order), each trace ordered by start time. */
export function groupTraces(spans: FlatSpan[]): Map<string, FlatSpan[]> {
  const traces = new Map<string, FlatSpan[]>();
  for (const s of spans) {
    const list = traces.get(s.traceId) ?? [];
    list.push(s);
    traces.set(s.traceId, list);
  }
  for (const list of traces.values()) list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return traces;
}

export const ms = (n: bigint | undefined): number | undefined => (n === undefined ? undefined : Number(n / 1_000_000n));
