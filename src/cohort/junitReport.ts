/**
 * A what-if report as JUnit XML for CI: one testsuite per batch, one testcase per run and assertion (a failed
 * assertion is a <failure>), and a `fork` testcase per run that fails only when the fork itself failed (a
 * divergence is an answer, reported in the test's output, not a failure), and the gate's certificate as a
 * testcase that fails when something ran that was not allowed to. Pure.
 */
import type { WhatIfReport } from './whatIfBatch';

const XML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text safe in an XML attribute or element (characters XML 1.0 cannot hold are dropped). */
export function xmlText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot hold are what it removes
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[&<>"']/g, (c) => XML_ESCAPES[c] as string)
  );
}

export function junitReport(report: WhatIfReport): string {
  const cases: string[] = [];
  let failures = 0;
  for (const r of report.results) {
    const cls = xmlText(`what-if.${r.sourceRunId}`);
    const out = xmlText(`${r.outcome}: ${r.detail}${r.forkRunId ? ` (fork ${r.forkRunId})` : ''}`);
    if (r.outcome === 'failed') {
      failures++;
      cases.push(
        `    <testcase classname="${cls}" name="fork"><failure message="${xmlText(r.detail)}" type="${xmlText(r.failureCode ?? 'failed')}">${out}</failure></testcase>`,
      );
    } else {
      cases.push(`    <testcase classname="${cls}" name="fork"><system-out>${out}</system-out></testcase>`);
    }
    for (const a of r.assertions) {
      const name = xmlText(a.name);
      if (a.passed) {
        cases.push(`    <testcase classname="${cls}" name="${name}"/>`);
        continue;
      }
      failures++;
      const held = a.sourcePassed === true ? ' (it held in the recording)' : '';
      const why = a.error ?? `does not hold at the fork's end${held}${a.reason ? `: ${a.reason}` : ''}`;
      cases.push(
        `    <testcase classname="${cls}" name="${name}"><failure message="${xmlText(why)}" type="assertion">${out}</failure></testcase>`,
      );
    }
  }
  const cert = report.certificate;
  if (cert.clean) {
    cases.push(
      `    <testcase classname="what-if" name="gate certificate"><system-out>${xmlText(cert.statement)}</system-out></testcase>`,
    );
  } else {
    failures++;
    cases.push(
      `    <testcase classname="what-if" name="gate certificate"><failure message="${xmlText(cert.statement)}" type="gate"/></testcase>`,
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ocdb what-if" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="what-if" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
