#!/usr/bin/env node
// Leg: the SDK client scenarios (lib/sdk-leg.mjs) with longcall/mcp's `sdkSender` over the
// official SDK 1.32.2 `Client`. Transcripts: results/sdk2025-<transport>.jsonl.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as types from '@modelcontextprotocol/sdk/types.js';
import { sdkSender } from '../../../pkg/mcp/index.js';
import { runSdkLeg } from '../lib/sdk-leg.mjs';

await runSdkLeg({
  leg: 'sdk2025',
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
  sender: (client) => sdkSender(client, { types }),
});
