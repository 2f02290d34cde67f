import { LAND_PATH } from '../../pages/members/world-map';
import './charts.css';

/** A place to mark: where it is and what it is, in words. */
export interface MapPlace {
  latitude: number;
  longitude: number;
  label: string;
  /** Drawn as a cross (the answer) rather than a numbered dot (a candidate). */
  main?: boolean;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** A place in words: 51.50000° N, 0.12000° W. */
export function degrees({ latitude, longitude }: { latitude: number; longitude: number }) {
  const ns = latitude >= 0 ? 'N' : 'S';
  const ew = longitude >= 0 ? 'E' : 'W';
  return `${Math.abs(latitude).toFixed(5)}° ${ns}, ${Math.abs(longitude).toFixed(5)}° ${ew}`;
}

/** The least width of the map's frame, in degrees of longitude: a third of the world. */
const LEAST_WIDTH = 120;
const STEP = 30;

/**
 * The part of the world around the places, twice as wide as high (as the
 * equirectangular map is): at least a third of the world, so that a place at
 * sea still has land in sight, the places inside with a margin, within the
 * world's edges.
 */
function frameOf(places: readonly MapPlace[]) {
  const longitudes = places.map((place) => place.longitude);
  const latitudes = places.map((place) => place.latitude);
  const [west, east] = [Math.min(...longitudes), Math.max(...longitudes)];
  const [south, north] = [Math.min(...latitudes), Math.max(...latitudes)];
  const width = Math.min(360, Math.max(LEAST_WIDTH, east - west + 30, 2 * (north - south + 15)));
  const height = width / 2;
  const x = clamp((west + east) / 2 - width / 2, -180, 180 - width);
  const y = clamp(-(south + north) / 2 - height / 2, -90, 90 - height);
  return { x, y, width, height };
}

/** Candidates whose marks would touch share one label ("1, 2"), at the first one's place. */
function labelsOf(places: readonly MapPlace[], near: number) {
  const labels: { x: number; y: number; numbers: number[] }[] = [];
  let number = 0;
  for (const place of places) {
    if (place.main) continue;
    number += 1;
    const [x, y] = [place.longitude, -place.latitude];
    const close = labels.find((label) => Math.hypot(label.x - x, label.y - y) < near);
    if (close) close.numbers.push(number);
    else labels.push({ x, y, numbers: [number] });
  }
  return labels;
}

const within = (value: number, from: number, length: number) =>
  value > from && value < from + length;

/**
 * Places on an equirectangular world map (x = longitude, y = −latitude),
 * framed around them, the land's rough outlines drawn by the members' world
 * map: a picture of where, named in words for those who do not see it; the
 * coordinates stay in the figures beside it. The answer's place is a cross,
 * candidates numbered dots (drawn under it).
 */
export function PlaceMap({ places, caption }: { places: readonly MapPlace[]; caption: string }) {
  if (places.length === 0) return null;
  const frame = frameOf(places);
  // Marks and text sized to the frame: the same on screen whatever it spans.
  const unit = frame.width / LEAST_WIDTH;
  const meridians = Array.from({ length: 360 / STEP - 1 }, (_, index) => -180 + (index + 1) * STEP);
  const parallels = Array.from({ length: 180 / STEP - 1 }, (_, index) => -90 + (index + 1) * STEP);
  const summary = `Map of ${places
    .map((place) => `${place.label} at ${degrees(place)}`)
    .join('; ')}.`;
  const candidates = places.filter((place) => !place.main);
  const main = places.filter((place) => place.main);
  return (
    <figure className="chart place-map" data-testid="place-map">
      <figcaption>{caption}</figcaption>
      <svg
        viewBox={`${frame.x} ${frame.y} ${frame.width} ${frame.height}`}
        role="img"
        aria-label={summary}
        preserveAspectRatio="xMidYMid meet"
      >
        <rect x={-180} y={-90} width={360} height={180} className="place-map-sea" />
        <path d={LAND_PATH} className="place-map-land" />
        {meridians.map((lon) => (
          <line key={`m${lon}`} x1={lon} x2={lon} y1={-90} y2={90} className="place-map-grid" />
        ))}
        {parallels.map((lat) => (
          <line key={`p${lat}`} x1={-180} x2={180} y1={-lat} y2={-lat} className="place-map-grid" />
        ))}
        <g className="place-map-scale" fontSize={3.2 * unit}>
          {meridians
            .filter((lon) => within(lon, frame.x, frame.width))
            .map((lon) => (
              <text key={`m${lon}`} x={lon + unit} y={frame.y + frame.height - unit}>
                {Math.abs(lon)}° {lon < 0 ? 'W' : 'E'}
              </text>
            ))}
          {parallels
            .filter((lat) => within(-lat, frame.y, frame.height))
            .map((lat) => (
              <text key={`p${lat}`} x={frame.x + unit} y={-lat - unit}>
                {lat === 0 ? '0°' : `${Math.abs(lat)}° ${lat < 0 ? 'S' : 'N'}`}
              </text>
            ))}
        </g>
        {candidates.map((place, index) => (
          <circle
            key={`c${index}`}
            className="place-map-mark place-map-candidate"
            cx={place.longitude}
            cy={-place.latitude}
            r={1.6 * unit}
          />
        ))}
        {labelsOf(candidates, 4 * unit).map((label) => (
          <text
            key={label.numbers.join()}
            className="place-map-number"
            x={label.x + 2.4 * unit}
            y={label.y - 2 * unit}
            fontSize={4 * unit}
          >
            {label.numbers.join(', ')}
          </text>
        ))}
        {main.map((place, index) => {
          const [x, y] = [place.longitude, -place.latitude];
          return (
            <g key={`a${index}`} className="place-map-mark place-map-main">
              <line x1={x - 4 * unit} x2={x + 4 * unit} y1={y} y2={y} />
              <line x1={x} x2={x} y1={y - 4 * unit} y2={y + 4 * unit} />
            </g>
          );
        })}
      </svg>
      <p className="muted place-map-note">
        Outlines are approximate; lines every {STEP}°.
        {places.length > 1 && ' Places closer together than their marks share one.'}
      </p>
    </figure>
  );
}
