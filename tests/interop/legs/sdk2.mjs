#!/usr/bin/env node
// Leg: the SDK client scenarios (lib/sdk-leg.mjs) with longcall/mcp's `sdk2Sender` over the SDK
// 2.x `Client` (@modelcontextprotocol/client 2.4.0, on the 2025-11-25 wire it negotiates by
// default). Transcripts: results/sdk2-<transport>.jsonl.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { sdk2Sender } from '../../../pkg/mcp/index.js';
import { runSdkLeg } from '../lib/sdk-leg.mjs';

await runSdkLeg({
  leg: 'sdk2',
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
  sender: (client) => sdk2Sender(client),
});
