import { type PointerEvent, useEffect, useId, useRef, useState } from 'react';

const WIDTH = 480;
const HEIGHT = 320;

/**
 * Drawing in the browser: a canvas drawn on with a mouse, pen or finger, added to
 * the sketches as a PNG. (Uploading a file is the way for those who cannot draw here.)
 */
export function SketchPad({ onAdd, disabled }: { onAdd: (file: File) => void; disabled: boolean }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawing = useRef(false);
  const [empty, setEmpty] = useState(true);
  const [count, setCount] = useState(0);
  const help = useId();

  const clear = () => {
    const context = canvas.current?.getContext('2d');
    if (!context) return;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, WIDTH, HEIGHT);
    setEmpty(true);
  };
  useEffect(clear, []);

  const at = (event: PointerEvent<HTMLCanvasElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    return {
      x: ((event.clientX - box.left) / box.width) * WIDTH,
      y: ((event.clientY - box.top) / box.height) * HEIGHT,
    };
  };
  const start = (event: PointerEvent<HTMLCanvasElement>) => {
    const context = event.currentTarget.getContext('2d');
    if (!context) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    drawing.current = true;
    const { x, y } = at(event);
    context.strokeStyle = '#1a1a1a';
    context.lineWidth = 3;
    context.lineCap = 'round';
    context.lineJoin = 'round';
    context.beginPath();
    context.moveTo(x, y);
    context.lineTo(x + 0.1, y + 0.1);
    context.stroke();
    setEmpty(false);
  };
  const draw = (event: PointerEvent<HTMLCanvasElement>) => {
    if (!drawing.current) return;
    const context = event.currentTarget.getContext('2d');
    const { x, y } = at(event);
    context?.lineTo(x, y);
    context?.stroke();
  };
  const stop = () => {
    drawing.current = false;
  };

  const add = () => {
    canvas.current?.toBlob((blob) => {
      if (!blob) return;
      const next = count + 1;
      setCount(next);
      onAdd(new File([blob], `drawing-${next}.png`, { type: 'image/png' }));
      clear();
    }, 'image/png');
  };

  return (
    <div className="mw-sketch-pad">
      <canvas
        ref={canvas}
        width={WIDTH}
        height={HEIGHT}
        role="img"
        aria-label="Drawing area"
        aria-describedby={help}
        onPointerDown={start}
        onPointerMove={draw}
        onPointerUp={stop}
        onPointerCancel={stop}
      />
      <p id={help} className="muted">
        Draw with a mouse, pen or finger, then add the drawing to your sketches.
      </p>
      <div className="actions">
        <button type="button" onClick={add} disabled={empty || disabled}>
          Add drawing to sketches
        </button>
        <button type="button" onClick={clear} disabled={empty}>
          Clear drawing
        </button>
      </div>
    </div>
  );
}
