/**
 * The pure rules of Set Up Model Endpoint…: the presets, which URLs are local, what a typed base URL or variable
 * name is refused for, one secret per endpoint origin, where a fork's key comes from, and when an endpoint counts
 * as configured.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ENDPOINT_PRESETS,
  baseUrlProblem,
  endpointSettings,
  endpointSummary,
  envVarProblem,
  isLocalUrl,
  keySourceOf,
  modelEndpointConfigured,
  secretKeyFor,
} from '../../../src/extension/modelEndpoint';
import { completionsUrl, modelsUrl } from '../../../src/fork/modelClient';

test('the presets: a local Ollama and LM Studio, OpenAI, and any base URL', () => {
  const byId = new Map(ENDPOINT_PRESETS.map((p) => [p.id, p]));
  assert.equal(byId.get('ollama')?.baseUrl, 'http://localhost:11434/v1');
  assert.equal(byId.get('lmstudio')?.baseUrl, 'http://localhost:1234/v1');
  assert.equal(byId.get('openai')?.baseUrl, 'https://api.openai.com/v1');
  assert.equal(byId.get('custom')?.baseUrl, undefined, 'asks for its URL');
  for (const p of ENDPOINT_PRESETS) {
    if (p.baseUrl) assert.equal(isLocalUrl(p.baseUrl), p.local, p.id);
    // each preset's URL reaches the OpenAI paths without a doubled /v1
    if (p.baseUrl) assert.match(completionsUrl(p.baseUrl), /[^1]\/v1\/chat\/completions$/);
    if (p.baseUrl) assert.match(modelsUrl(p.baseUrl), /[^1]\/v1\/models$/);
  }
});

test('modelsUrl: beside chat/completions, queries kept, credentials dropped', () => {
  assert.equal(modelsUrl('http://127.0.0.1:8000'), 'http://127.0.0.1:8000/v1/models');
  assert.equal(
    modelsUrl('https://gw.example.com/openai/v1/?api-version=2'),
    'https://gw.example.com/openai/v1/models?api-version=2',
  );
  assert.equal(modelsUrl('https://u:p@gw.example.com/v1'), 'https://gw.example.com/v1/models');
});

test('local URLs are this machine only', () => {
  for (const u of ['http://localhost:11434/v1', 'http://127.0.0.1:1234', 'http://[::1]:8080/v1', 'http://127.8.0.1/'])
    assert.equal(isLocalUrl(u), true, u);
  for (const u of ['https://api.openai.com/v1', 'http://localhost.example.com/v1', 'http://10.0.0.5/v1', 'not a url'])
    assert.equal(isLocalUrl(u), false, u);
});

test('a typed base URL is refused with a reason; credentials in it are refused (the key is asked for)', () => {
  assert.equal(baseUrlProblem('http://localhost:8000/v1'), undefined);
  assert.match(baseUrlProblem('') ?? '', /Type the base URL/);
  assert.match(baseUrlProblem('localhost:8000') ?? '', /http:\/\/ or https:\/\//);
  assert.match(baseUrlProblem('ftp://host/v1') ?? '', /http:\/\/ or https:\/\//);
  assert.match(baseUrlProblem('nonsense') ?? '', /is not a URL/);
  assert.match(baseUrlProblem('https://me:sk-123@api.example.com/v1') ?? '', /credentials/);
  assert.equal(envVarProblem('OPENAI_API_KEY'), undefined);
  assert.match(envVarProblem('1KEY') ?? '', /variable name/);
  assert.match(envVarProblem('MY-KEY') ?? '', /variable name/);
});

test('one secret per endpoint origin: a key stored for OpenAI is never sent to another host', () => {
  assert.equal(secretKeyFor('https://api.openai.com/v1'), secretKeyFor('https://api.openai.com/other'));
  assert.notEqual(secretKeyFor('https://api.openai.com/v1'), secretKeyFor('https://evil.example.com/v1'));
  assert.notEqual(secretKeyFor('http://localhost:11434/v1'), secretKeyFor('http://localhost:1234/v1'));
});

test('a fork gets the stored key first, else the variable named, else none — never both', () => {
  const settings = {
    modelBaseUrl: ' http://localhost:11434/v1 ',
    modelName: 'llama3.2',
    apiKeyEnvVar: 'OPENAI_API_KEY',
  };
  assert.deepEqual(keySourceOf(settings, 'sk-1'), { kind: 'secret' });
  assert.deepEqual(keySourceOf(settings, undefined), { kind: 'env', name: 'OPENAI_API_KEY' });
  assert.deepEqual(keySourceOf({ apiKeyEnvVar: ' ' }, undefined), { kind: 'none' });
  assert.deepEqual(endpointSettings(settings, 'sk-1'), {
    baseUrl: 'http://localhost:11434/v1',
    model: 'llama3.2',
    apiKey: 'sk-1',
  });
  assert.deepEqual(endpointSettings(settings, undefined), {
    baseUrl: 'http://localhost:11434/v1',
    model: 'llama3.2',
    apiKeyEnv: 'OPENAI_API_KEY',
  });
  assert.ok(!endpointSummary(settings, 'sk-1').includes('sk-1'), 'the summary never shows the key');
  assert.match(endpointSummary(settings, 'sk-1'), /llama3\.2 at .*secret storage/);
  assert.match(endpointSummary(settings, undefined), /key from \$OPENAI_API_KEY/);
});

test('configured: a stored key, a local URL, a set variable, or no variable named', () => {
  const openai = { modelBaseUrl: 'https://api.openai.com/v1', apiKeyEnvVar: 'OPENAI_API_KEY' };
  assert.equal(modelEndpointConfigured(openai, {}, false), false, 'no key anywhere');
  assert.equal(modelEndpointConfigured(openai, { OPENAI_API_KEY: 'sk' }, false), true);
  assert.equal(modelEndpointConfigured(openai, {}, true), true, 'the key in SecretStorage');
  assert.equal(modelEndpointConfigured({ ...openai, modelBaseUrl: 'http://localhost:1234/v1' }, {}, false), true);
  assert.equal(modelEndpointConfigured({ ...openai, apiKeyEnvVar: '' }, {}, false), true);
  assert.equal(modelEndpointConfigured({ ...openai, modelBaseUrl: '' }, {}, true), false);
  assert.equal(modelEndpointConfigured({ ...openai, modelBaseUrl: 'nonsense' }, {}, true), false);
});
