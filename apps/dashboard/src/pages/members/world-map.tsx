import { type KeyboardEvent, type MouseEvent, useId, useRef } from 'react';

export interface Point {
  latitude: number;
  longitude: number;
}

// Rough outlines of the land, [longitude, latitude], drawn in code (the dashboard loads
// nothing from the internet): enough to find one's way, not a map to navigate by.
// prettier-ignore
const LAND: [number, number][][] = [
  // North and Central America
  [
    [-168, 66], [-162, 70], [-140, 70], [-125, 70], [-95, 72], [-80, 73], [-62, 67], [-55, 52],
    [-66, 45], [-76, 38], [-81, 31], [-80, 25], [-83, 29], [-90, 30], [-97, 26], [-97, 21],
    [-92, 18], [-88, 16], [-83, 9], [-78, 8], [-86, 12], [-92, 15], [-105, 20], [-110, 23],
    [-115, 30], [-118, 34], [-124, 40], [-124, 48], [-130, 55], [-140, 60], [-150, 60],
    [-158, 57], [-165, 60],
  ],
  // South America
  [
    [-78, 8], [-72, 12], [-62, 10], [-50, 0], [-35, -5], [-39, -15], [-48, -26], [-58, -35],
    [-65, -42], [-68, -52], [-72, -52], [-75, -45], [-73, -35], [-71, -20], [-76, -12],
    [-81, -5], [-80, 0],
  ],
  // Europe and Asia
  [
    [-10, 36], [-9, 43], [-2, 44], [-5, 48], [2, 51], [8, 54], [10, 57], [5, 62], [15, 69],
    [28, 71], [40, 67], [60, 69], [70, 73], [80, 73], [100, 78], [130, 72], [160, 70],
    [180, 68], [180, 65], [170, 60], [160, 55], [140, 52], [135, 43], [128, 35], [122, 40],
    [120, 30], [110, 20], [105, 10], [100, 13], [98, 16], [92, 22], [80, 15], [77, 8],
    [72, 20], [67, 25], [57, 25], [55, 17], [43, 12], [35, 28], [33, 31], [35, 36], [27, 37],
    [26, 41], [23, 36], [20, 40], [16, 38], [12, 44], [8, 44], [3, 43], [-5, 36],
  ],
  // Africa
  [
    [-17, 15], [-17, 21], [-13, 28], [-6, 36], [10, 37], [20, 32], [32, 31], [35, 28],
    [43, 12], [51, 12], [40, -2], [40, -15], [35, -24], [27, -34], [18, -34], [12, -18],
    [13, -6], [9, 4], [-8, 4],
  ],
  // Australia
  [
    [114, -22], [122, -18], [130, -12], [137, -12], [142, -11], [146, -19], [153, -26],
    [150, -37], [141, -38], [135, -35], [115, -34],
  ],
  // Greenland
  [[-55, 60], [-45, 60], [-20, 70], [-18, 80], [-40, 83], [-65, 80], [-72, 77]],
  // Great Britain, Japan, Madagascar
  [[-5, 50], [1, 51], [0, 53], [-2, 57], [-5, 58], [-6, 55], [-3, 54]],
  [[130, 31], [135, 34], [141, 38], [142, 43], [145, 44], [141, 45], [140, 41], [136, 36], [130, 34]],
  [[44, -25], [47, -25], [50, -15], [49, -12], [44, -17]],
  // Antarctica
  [[-180, -70], [180, -70], [180, -90], [-180, -90]],
];

/** The outlines as one SVG path in the map's coordinates (also drawn by the charts' place map). */
export const LAND_PATH = LAND.map(
  (outline) => `M${outline.map(([lon, lat]) => `${lon},${-lat}`).join('L')}Z`,
).join('');

const MERIDIANS = [-150, -120, -90, -60, -30, 0, 30, 60, 90, 120, 150];
const PARALLELS = [-60, -30, 0, 30, 60];

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const round = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * An equirectangular world map (x = longitude, y = −latitude, in degrees): click to
 * place the marker, or focus it and use the arrow keys (1°, with Shift 10°). The
 * latitude and longitude fields beside it are the same value, typed.
 */
export function WorldMap({
  value,
  onChange,
  label,
}: {
  value: Point | null;
  onChange: (point: Point) => void;
  label: string;
}) {
  const svg = useRef<SVGSVGElement>(null);
  const help = useId();

  const place = (event: MouseEvent<SVGSVGElement>) => {
    const element = svg.current;
    const matrix = element?.getScreenCTM();
    if (!element || !matrix) return;
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    onChange({
      latitude: round(clamp(-point.y, -90, 90)),
      longitude: round(clamp(point.x, -180, 180)),
    });
  };

  const move = (event: KeyboardEvent<SVGSVGElement>) => {
    const step = event.shiftKey ? 10 : 1;
    const moves: Record<string, [number, number]> = {
      ArrowUp: [step, 0],
      ArrowDown: [-step, 0],
      ArrowLeft: [0, -step],
      ArrowRight: [0, step],
    };
    const delta = moves[event.key];
    if (!delta) return;
    event.preventDefault();
    const from = value ?? { latitude: 0, longitude: 0 };
    onChange({
      latitude: round(clamp(from.latitude + delta[0], -90, 90)),
      longitude: round(clamp(from.longitude + delta[1], -180, 180)),
    });
  };

  return (
    <div className="mw-world-map">
      <svg
        ref={svg}
        viewBox="-180 -90 360 180"
        role="application"
        aria-label={label}
        aria-describedby={help}
        tabIndex={0}
        onClick={place}
        onKeyDown={move}
      >
        <rect x={-180} y={-90} width={360} height={180} className="mw-sea" />
        <path d={LAND_PATH} className="mw-land" />
        {MERIDIANS.map((lon) => (
          <line key={`m${lon}`} x1={lon} x2={lon} y1={-90} y2={90} className="mw-graticule" />
        ))}
        {PARALLELS.map((lat) => (
          <line key={`p${lat}`} x1={-180} x2={180} y1={-lat} y2={-lat} className="mw-graticule" />
        ))}
        {value && (
          <g className="mw-marker" data-testid="map-marker">
            <circle cx={value.longitude} cy={-value.latitude} r={3} />
            <line
              x1={value.longitude - 6}
              x2={value.longitude + 6}
              y1={-value.latitude}
              y2={-value.latitude}
            />
            <line
              x1={value.longitude}
              x2={value.longitude}
              y1={-value.latitude - 6}
              y2={-value.latitude + 6}
            />
          </g>
        )}
      </svg>
      <p id={help} className="muted">
        Click the map to place the target, or focus the map and move the marker with the arrow keys
        (Shift for 10°). Lines every 30°; outlines are approximate.
      </p>
    </div>
  );
}
