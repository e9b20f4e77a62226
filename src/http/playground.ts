import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ApolloServerPlugin } from '@apollo/server';
import type { KeyStore } from '../auth/keys';
import type { Route } from './routes';

/**
 * The playground: GraphiQL served entirely by this server, so that it works with no network at all. Its assets are the
 * prebuilt browser bundles of the graphiql, react and react-dom packages (fonts are inlined in graphiql's CSS); the
 * page (GET /graphql from a browser) is Apollo's landing page, rendered by `playgroundLandingPage`.
 */

/** Where the page loads its assets from, relative to /graphql so that a path prefix added by a proxy is kept. */
const ASSETS_DIR = 'playground';

const PACKAGE_ASSETS: Record<string, { packageName: string; file: string; contentType: string }> = {
  'react.js': { packageName: 'react', file: 'umd/react.production.min.js', contentType: 'text/javascript' },
  'react-dom.js': { packageName: 'react-dom', file: 'umd/react-dom.production.min.js', contentType: 'text/javascript' },
  'graphiql.js': { packageName: 'graphiql', file: 'graphiql.min.js', contentType: 'text/javascript' },
  'graphiql.css': { packageName: 'graphiql', file: 'graphiql.min.css', contentType: 'text/css' },
};

/** Mounts GraphiQL with the page's settings (its JSON script element); a file, as the page's CSP allows no inline script. */
const INIT_SCRIPT = `(function () {
  var settings = JSON.parse(document.getElementById('playground-settings').textContent);
  var props = {
    fetcher: GraphiQL.createFetcher({ url: location.origin + location.pathname }),
    defaultQuery: settings.query,
    shouldPersistHeaders: false,
  };
  if (settings.headers) {
    props.defaultHeaders = settings.headers;
    props.defaultEditorToolsVisibility = 'headers';
  }
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, props));
})();
`;

/** The operation the playground opens with: it runs as is on an empty database and shows where to go next. */
export const EXAMPLE_OPERATION = `# Welcome to the Hindsight playground. Run an operation with the ▶ button (Ctrl-Enter);
# the book icon on the left opens the schema's documentation.

query RecentSessions {
  serverInfo {
    version
    database {
      kind
    }
  }
  sessions(first: 5) {
    totalCount
    edges {
      node {
        sessionId
        sessionType
        messageCount
        updatedAt
        agents {
          agentId
          messageCount
        }
      }
    }
  }
}
`;

/** Shown in the headers editor when every request needs a key. */
const KEY_HEADERS = JSON.stringify({ Authorization: 'Bearer <your API key>' }, null, 2);

// The fonts are data: URLs in graphiql's CSS; React and CodeMirror set inline styles.
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'";

function pageHtml(keyRequired: boolean): string {
  // JSON inside <script>: `<` escaped so that the text cannot close the element.
  const settings = JSON.stringify({ query: EXAMPLE_OPERATION, headers: keyRequired ? KEY_HEADERS : undefined }).replace(
    /</g,
    '\\u003c',
  );
  const asset = (file: string) => `${ASSETS_DIR}/${file}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<title>Hindsight playground</title>
<link rel="stylesheet" href="${asset('graphiql.css')}">
<link rel="stylesheet" href="${asset('page.css')}">
</head>
<body>
<div id="graphiql">Loading the playground…</div>
<script type="application/json" id="playground-settings">${settings}</script>
<script src="${asset('react.js')}"></script>
<script src="${asset('react-dom.js')}"></script>
<script src="${asset('graphiql.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`;
}

/**
 * Apollo's landing page (GET /graphql with Accept: text/html) as the playground. Rendered per request: a key added
 * while the server runs (npm run keys) makes the headers editor open with an Authorization header.
 */
export function playgroundLandingPage(keys: KeyStore): ApolloServerPlugin {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html: async () => pageHtml(await keys.required()) };
        },
      };
    },
  };
}

interface Asset {
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
}

/** GET /playground/<file>: the page's assets, read and compressed on first request. */
export function playgroundRoutes(): Route[] {
  const sources: Record<string, { contentType: string; read: () => string | Buffer }> = {
    'init.js': { contentType: 'text/javascript', read: () => INIT_SCRIPT },
    'page.css': { contentType: 'text/css', read: () => 'html, body, #graphiql { height: 100%; margin: 0; }\n' },
  };
  for (const [asset, { packageName, file, contentType }] of Object.entries(PACKAGE_ASSETS)) {
    // Resolved now, so that a missing package stops the start; the packages' exports do not list these files.
    const filePath = path.join(path.dirname(require.resolve(`${packageName}/package.json`)), file);
    sources[asset] = { contentType, read: () => readFileSync(filePath) };
  }
  return Object.entries(sources).map(([file, source]) => {
    let asset: Asset | undefined;
    return {
      path: `/${ASSETS_DIR}/${file}`,
      method: 'GET',
      handle(req: IncomingMessage, res: ServerResponse) {
        if (!asset) {
          const body = Buffer.from(source.read());
          asset = { contentType: source.contentType, body, gzipped: gzipSync(body) };
        }
        const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
        const body = gzip ? asset.gzipped : asset.body;
        res.writeHead(200, {
          'content-type': `${asset.contentType}; charset=utf-8`,
          'content-length': body.length,
          'cache-control': 'public, max-age=3600',
          vary: res.hasHeader('vary') ? `${String(res.getHeader('vary'))}, Accept-Encoding` : 'Accept-Encoding',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        res.end(body);
      },
    };
  });
}
